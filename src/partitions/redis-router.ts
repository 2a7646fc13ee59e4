import { ConnectionWatch } from '../sources/broker-source.js';
import { connectRedis } from '../sources/redis-connection.js';
import type { RedisClient } from '../sources/redis-connection.js';
import { partitionOfEvent } from './partition-of.js';
import { createRedisLeaseStore } from './redis-lease-store.js';
import type { Router, RouterOptions } from './router.js';
import { holdRouterLease } from './router-lease.js';
import type { RoutingTerm } from './router-lease.js';
import { behindMarks, markText, routedChannel } from './routed-marks.js';

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
 * claim time).
 *
 * After each read to the end, once its entries are routed, it sends a drain mark; at the start of a
 * term and while it reads full batches (a backlog), a behind mark (routed-marks.ts).
 *
 * One router routes at a time (the routing lease `<key>:<group>:routing:lease:0`); others stand
 * by. A term first claims everything pending in the group (a dead or paused router's entries, this
 * router's own after a restart) and routes it in entry order, then reads new entries: what a
 * router held when it died or paused comes back ahead of anything newer of its runs.
 */
export function createRedisRouter(options: RouterOptions): Router {
  const stopping = new AbortController();
  let routed = 0;
  const markerMillis = Math.max(600_000, 10 * options.ackWaitMillis);
  const field = options.field ?? 'event';
  const unreadableSeen = new Set<string>();

  const routeTerm = async (client: RedisClient, term: RoutingTerm) => {
    const route = (entry: Entry): Promise<void> => {
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
      // Not routed once the term may not act: the next term claims it, ahead of newer entries.
      if (!term.mayAct()) return Promise.reject(new StaleTerm());
      const p = partitionOfEvent(text, options.partitions);
      return client
        .eval(ROUTE, {
          keys: [`${options.source}:routed:${entry.id}`, `${options.source}:${p}`, options.source],
          arguments: [text, String(markerMillis), options.group, entry.id],
        })
        .then(() => {
          routed += 1;
        });
    };
    // Sent in order over one connection, so the copies are added in entry order.
    const routeAll = (entries: readonly Entry[]) => Promise.all(entries.map(route));
    const watch = new ConnectionWatch('Redis', options.report);
    const channel = routedChannel(options.source);
    // Instances hold their windows from here until this term reads to the end.
    const behindMark = behindMarks((text) => client.publish(channel, text));
    await behindMark.mark();
    // Everything pending in the group first, in entry order: the previous router is fenced (its
    // term is over), so its entries are taken at once, not after an idle time.
    for (let cursor = '0-0'; !term.ended.aborted;) {
      const claimed = await client.xAutoClaim(
        options.source,
        options.group,
        options.consumer,
        0,
        cursor,
        { COUNT: options.batchSize },
      );
      await routeAll(claimed.messages.filter((e): e is Entry => e !== null));
      await behindMark.ifDue();
      cursor = claimed.nextId;
      if (cursor === '0-0') break;
    }
    while (!term.ended.aborted) {
      // A read moves entries into this router's pending list: sent only while the term may act,
      // and waiting no longer than that.
      const window = Math.min(500, Math.floor(term.readWindow()) - 50);
      if (window <= 0) return;
      try {
        const sentAt = Date.now();
        const reply = (await client.xReadGroup(
          options.group,
          options.consumer,
          { key: options.source, id: '>' },
          { COUNT: options.batchSize, BLOCK: window },
        )) as { messages: Entry[] }[] | null;
        const entries = reply?.[0]?.messages ?? [];
        // A read that found entries returned at once, perhaps before newer ones came in while
        // its reply was on its way: it read the stream to the end as of when it was sent. One
        // that found nothing waited at the server for its block time, however late its reply
        // is read here (a busy process): what came after that is not in it.
        const readAt = entries.length > 0 ? sentAt : Math.min(Date.now(), sentAt + window);
        await routeAll(entries);
        watch.ok();
        // With room left, the read took everything there was: once its entries are routed, a
        // drain mark says so (routed-marks.ts).
        if (entries.length < options.batchSize)
          await client.publish(channel, markText(Date.now() - readAt));
        else await behindMark.ifDue();
      } catch (error) {
        if (error instanceof StaleTerm) return;
        // What was read and not routed stays pending: the term ends, and the next one claims it
        // ahead of anything newer.
        watch.lost(error);
        throw error;
      }
    }
  };

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
        const store = await createRedisLeaseStore({
          url: options.url,
          prefix: `${options.source}:${options.group}:routing`,
          instanceId: options.consumer,
          leaseMillis: options.leaseMillis,
        });
        await holdRouterLease({
          store,
          leaseMillis: options.leaseMillis,
          stopping: stopping.signal,
          report: options.report,
          route: (term) =>
            routeTerm(client, term).catch((error: unknown) => {
              if (!(error instanceof StaleTerm)) throw error;
            }),
        });
        await store.close();
      } finally {
        client.destroy();
      }
    },
    stop() {
      stopping.abort();
    },
  };
}

/** An entry left unrouted because the term may no longer act. */
class StaleTerm extends Error {}
