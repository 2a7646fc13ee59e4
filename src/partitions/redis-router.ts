import { ConnectionWatch } from '../sources/broker-source.js';
import { connectRedis } from '../sources/redis-connection.js';
import { partitionOfEvent } from './partition-of.js';
import type { Router, RouterOptions } from './router.js';

// Republishes one entry and acknowledges it, atomically, at most once per source entry id: a
// router that died between the two leaves a marker, so the entry, claimed again, is only acked.
const ROUTE = `
if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[2]) then
  redis.call('XADD', KEYS[2], '*', 'event', ARGV[1])
end
return redis.call('XACK', KEYS[3], ARGV[3], ARGV[4])`;

interface Entry {
  readonly id: string;
  readonly message: Record<string, string>;
}

/**
 * Routes a Redis stream to `<key>:<p>`: each entry's `event` is added to its partition and
 * acknowledged in one script, deduplicated by the source entry id (markers live ten times the
 * claim time). Routers share a consumer group; a live router claims a dead one's entries once they
 * have been idle `ackWaitMillis`.
 */
export function createRedisRouter(options: RouterOptions): Router {
  const stopping = new AbortController();
  let routed = 0;
  const markerMillis = Math.max(600_000, 10 * options.ackWaitMillis);
  return {
    get routed() {
      return routed;
    },
    async run() {
      const client = await connectRedis(options.url);
      try {
        // Started before anything was published: the stream is created with the group.
        await client
          .xGroupCreate(options.source, options.group, '0', { MKSTREAM: true })
          .catch((error: unknown) => {
            if (!(error as Error).message.includes('BUSYGROUP')) throw error;
          });
        const field = options.field ?? 'event';
        const unreadableSeen = new Set<string>();
        const route = (entry: Entry) => {
          const text = entry.message[field];
          if (text === undefined) {
            // Left pending for inspection, never routed or acknowledged unread; said once.
            if (!unreadableSeen.has(entry.id)) {
              unreadableSeen.add(entry.id);
              if (unreadableSeen.size > 10_000)
                unreadableSeen.delete(unreadableSeen.values().next().value!);
              options.report(
                `entry ${entry.id} of ${options.source} has no field "${field}"; left pending for inspection — is --field right?`,
              );
            }
            return Promise.resolve();
          }
          const p = partitionOfEvent(text, options.partitions);
          return client
            .eval(ROUTE, {
              keys: [
                `${options.source}:routed:${entry.id}`,
                `${options.source}:${p}`,
                options.source,
              ],
              arguments: [text, String(markerMillis), options.group, entry.id],
            })
            .then(() => {
              routed += 1;
            });
        };
        const watch = new ConnectionWatch('Redis', options.report);
        let claimedAt = 0;
        // This router's own pending entries first (a restart), then new ones.
        let from = '0';
        while (!stopping.signal.aborted) {
          try {
            if (Date.now() - claimedAt > options.ackWaitMillis / 2) {
              claimedAt = Date.now();
              for (let cursor = '0-0'; ;) {
                const claimed = await client.xAutoClaim(
                  options.source,
                  options.group,
                  options.consumer,
                  options.ackWaitMillis,
                  cursor,
                  { COUNT: options.batchSize },
                );
                await Promise.all(
                  claimed.messages.filter((e): e is Entry => e !== null).map(route),
                );
                cursor = claimed.nextId;
                if (cursor === '0-0') break;
              }
            }
            const reply = (await client.xReadGroup(
              options.group,
              options.consumer,
              { key: options.source, id: from },
              { COUNT: options.batchSize, ...(from === '>' ? { BLOCK: 500 } : {}) },
            )) as { messages: Entry[] }[] | null;
            const entries = reply?.[0]?.messages ?? [];
            if (from !== '>' && entries.length === 0) from = '>';
            else if (from !== '>') from = entries.at(-1)!.id;
            await Promise.all(entries.map(route));
            watch.ok();
          } catch (error) {
            await watch.failed(error, stopping.signal);
          }
        }
      } finally {
        client.destroy();
      }
    },
    stop() {
      stopping.abort();
    },
  };
}
