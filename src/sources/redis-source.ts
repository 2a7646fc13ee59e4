import type { BrokerSource } from './broker-source.js';
import { ConnectionWatch, pause } from './broker-source.js';
import { connectRedis } from './redis-connection.js';
import type { RedisClient } from './redis-connection.js';

export interface RedisSourceOptions {
  readonly url: string;
  readonly stream: string;
  readonly group: string;
  readonly consumer: string;
  /** Entries of other consumers idle this long are claimed at start (a crashed consumer's). */
  readonly claimIdleMillis: number;
  readonly batchSize: number;
  /** Told when the connection is lost and when it is back. Default: silent. */
  readonly report?: (message: string) => void;
  /** The entry field that holds the event (behest: `event`). */
  readonly field?: string;
  /**
   * Told of an entry without that field: it is left pending, unacknowledged, for inspection
   * (`XPENDING`, `XRANGE`), never acknowledged unread. Told once per entry id while running.
   */
  readonly unreadable?: (message: string) => void;
  /**
   * When set, `open()` refuses (throws this message, given who else reads) to share the group with
   * another consumer that read from it in the last few seconds: each would see part of every run.
   */
  readonly refuseShared?: ((other: string) => string) | undefined;
  /**
   * Told after each read of new entries that took fewer than a batch: every entry stored before
   * `sentAt` (Date.now() when the read was sent) has been handed over. Not told while it reads
   * its own pending entries or claims others', nor after a failed read.
   */
  readonly drained?: (sentAt: number) => void;
}

/** Another consumer of the group that read within this long is taken as live. */
const SHARED_IDLE_MILLIS = 5000;
/** The longest a read waits at the server for new entries. */
const BLOCK_MILLIS = 500;
/** A read window shorter than this is not used (Redis reads `BLOCK 0` as "for ever"). */
const SHORTEST_BLOCK_MILLIS = 20;
interface Entry {
  readonly id: string;
  readonly message: Record<string, string>;
}

/**
 * A Redis Streams consumer group reader (`XREADGROUP` / `XACK`), reading each entry's `event`
 * field (or `field`); an entry without it is said and left pending, never acknowledged unread. At start it reads this consumer's own pending entries, then claims (`XAUTOCLAIM`) the
 * group's entries left idle by a crashed consumer; a message to be redelivered is handed over
 * again after its delay. It creates the group when missing, and the stream with it when nothing
 * was published yet.
 */
export function createRedisSource(options: RedisSourceOptions): BrokerSource {
  let reader: RedisClient | undefined;
  let writer: RedisClient | undefined;
  const stopping = new AbortController();
  const acks = new Set<Promise<unknown>>();
  let retries: { text: string; id: string; at: number }[] = [];
  // Messages asked back in one pass of the event loop (a run whose export failed) are due at
  // the same moment, however long the asking took, so that they come back together.
  let passStarted: number | undefined;
  const askedAt = () => {
    if (passStarted === undefined) {
      passStarted = Date.now();
      queueMicrotask(() => (passStarted = undefined));
    }
    return passStarted;
  };
  const description = `${options.url} stream ${options.stream} (group ${options.group}, consumer ${options.consumer})`;

  const track = (promise: Promise<unknown>) => {
    const tracked = promise.catch(() => undefined).finally(() => acks.delete(tracked));
    acks.add(tracked);
  };

  // Acknowledgements made in one turn of the event loop go out as one XACK.
  let ackBatch: string[] = [];
  const flushAcks = () => {
    const ids = ackBatch;
    ackBatch = [];
    if (writer !== undefined && ids.length > 0)
      track(writer.xAck(options.stream, options.group, ids));
  };
  const field = options.field ?? 'event';
  // Entries without the field already said (bounded: they are read again at each start).
  const unreadableSeen = new Set<string>();
  const deliver = (entry: Entry, onMessage: Parameters<BrokerSource['run']>[0]) => {
    const text = entry.message[field];
    const ack = () => {
      if (ackBatch.length === 0) setImmediate(flushAcks);
      ackBatch.push(entry.id);
    };
    if (text === undefined) {
      if (unreadableSeen.has(entry.id)) return;
      unreadableSeen.add(entry.id);
      if (unreadableSeen.size > 10_000)
        unreadableSeen.delete(unreadableSeen.values().next().value!);
      const fields = Object.keys(entry.message);
      options.unreadable?.(
        `entry ${entry.id} of ${options.stream} has no field "${field}" (it has ${fields.length === 0 ? 'none' : fields.map((f) => `"${f}"`).join(', ')}); left pending for inspection — is --field right?`,
      );
      return;
    }
    onMessage(text, {
      ack,
      nak: (delay) => retries.push({ text, id: entry.id, at: askedAt() + delay }),
      // It stays in this consumer's pending list, where the next owner claims it.
      release: () => undefined,
    });
  };

  return {
    description,
    keepAliveMillis: undefined,
    async open() {
      [reader, writer] = await Promise.all([connectRedis(options.url), connectRedis(options.url)]);
      // A stream nothing was published to yet is created with the group (an XADD to it then
      // works as to any stream), so a bridge started before the runtime waits for its events.
      try {
        await writer.xGroupCreate(options.stream, options.group, '0', { MKSTREAM: true });
      } catch (error) {
        if (!(error as Error).message.includes('BUSYGROUP')) throw error;
      }
      if (options.refuseShared !== undefined) {
        // A live consumer reads (blocking half a second at a time) and so is never idle long.
        const others = (await writer.xInfoConsumers(options.stream, options.group)).filter(
          (c) => c.name !== options.consumer && Number(c.idle) < SHARED_IDLE_MILLIS,
        );
        if (others.length > 0)
          throw new Error(
            options.refuseShared(
              `consumer ${others.map((c) => c.name).join(', ')} of group ${options.group}`,
            ),
          );
      }
    },
    async lag() {
      if (writer === undefined) return undefined;
      const groups = await writer.xInfoGroups(options.stream);
      const lag = groups.find((g) => g.name === options.group)?.lag;
      return lag === undefined || lag === null ? undefined : Number(lag);
    },
    async run(onMessage, canPull, readWindow = () => Infinity) {
      if (reader === undefined || writer === undefined) throw new Error('open() first');
      const read = async (id: string, block?: number) => {
        const reply = await reader!.xReadGroup(
          options.group,
          options.consumer,
          { key: options.stream, id },
          { COUNT: options.batchSize, ...(block === undefined ? {} : { BLOCK: block }) },
        );
        return (reply as { messages: Entry[] }[] | null)?.[0]?.messages ?? [];
      };
      const watch = new ConnectionWatch('Redis', options.report ?? (() => undefined));
      // This consumer's own pending entries (a restart after a crash), then other consumers' idle
      // ones. A read that fails (the connection dropped, the server refused) is tried again from
      // where it was, so that nothing is skipped and nothing delivered twice.
      let from = '0';
      let cursor: string | undefined = '0-0';
      while (!stopping.signal.aborted && cursor !== undefined) {
        // A claim moves entries to this consumer: not once its owner may no longer act.
        if (readWindow() < SHORTEST_BLOCK_MILLIS) {
          await pause(SHORTEST_BLOCK_MILLIS, stopping.signal);
          continue;
        }
        try {
          if (from !== '') {
            const pending = await read(from);
            if (pending.length === 0) from = '';
            else {
              for (const entry of pending) deliver(entry, onMessage);
              from = pending.at(-1)!.id;
            }
            continue;
          }
          const claimed = await writer.xAutoClaim(
            options.stream,
            options.group,
            options.consumer,
            options.claimIdleMillis,
            cursor,
            { COUNT: options.batchSize },
          );
          for (const entry of claimed.messages) if (entry !== null) deliver(entry, onMessage);
          cursor = claimed.nextId === '0-0' ? undefined : claimed.nextId;
          watch.ok();
        } catch (error) {
          await watch.failed(error, stopping.signal);
        }
      }
      while (!stopping.signal.aborted) {
        const now = Date.now();
        if (retries.some((r) => r.at <= now)) {
          const due = retries.filter((r) => r.at <= now);
          retries = retries.filter((r) => r.at > now);
          for (const retry of due)
            deliver({ id: retry.id, message: { [field]: retry.text } }, onMessage);
        }
        // An entry read goes into this consumer's pending list, where only a new owner's claim
        // at start finds it: the read ends at the server while its owner surely holds the lease.
        // Nor does a read outlast the next redelivery's time.
        const window = Math.min(
          BLOCK_MILLIS,
          Math.floor(readWindow()),
          retries.reduce((soonest, r) => Math.min(soonest, r.at - now), Infinity),
        );
        if (!canPull() || window < SHORTEST_BLOCK_MILLIS) {
          await pause(50, stopping.signal);
          continue;
        }
        let entries: Entry[];
        const sentAt = Date.now();
        try {
          entries = await read('>', window);
          watch.ok();
        } catch (error) {
          // Redis restarted or the connection dropped: the client reconnects by itself; entries
          // delivered before stay in this consumer's pending list until they are acknowledged.
          await watch.failed(error, stopping.signal);
          continue;
        }
        for (const entry of entries) deliver(entry, onMessage);
        // Fewer than asked for: the server had no more when it took the read.
        if (entries.length < options.batchSize) options.drained?.(sentAt);
      }
    },
    stop() {
      stopping.abort();
    },
    async close() {
      flushAcks();
      await Promise.all([...acks]);
      reader?.destroy();
      writer?.destroy();
    },
  };
}
