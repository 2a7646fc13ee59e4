import type { Meter } from '@opentelemetry/api';
import type { BrokerSource } from '../sources/broker-source.js';
import { pause } from '../sources/broker-source.js';
import type { LeaseStore } from './lease-store.js';

export interface PartitionedSourceOptions {
  /** Partitions of the stream (`<subject>.<p>`, `<key>:<p>`). */
  readonly partitions: number;
  /** How long a lease lives without renewal: a dead owner's partitions move after at most this. */
  readonly leaseMillis: number;
  readonly description: string;
  readonly keepAliveMillis: number | undefined;
  /** The lease store, connected in `open()`. */
  readonly store: () => Promise<LeaseStore>;
  /** The source that reads partition `p`. */
  readonly partitionSource: (p: number) => BrokerSource;
  /** Before `p` is read: rebuild its checkpointed runs. */
  readonly beforeTake: (p: number) => Promise<void>;
  /** Before `p` is handed over: settle what can be settled (export and acknowledge ended runs). */
  readonly beforeRelease: (p: number) => Promise<void>;
  /** `p` is no longer this instance's: forget its open runs, leaving its messages to the next owner. */
  readonly dropped: (p: number) => void;
  /** Ownership changes, said once each. */
  readonly report: (message: string) => void;
  /** For the instance's own metrics: partitions owned, ownership changes. */
  readonly meter?: Meter | undefined;
}

interface Owned {
  readonly source: BrokerSource;
  readonly running: Promise<void>;
  readonly since: number;
}

/**
 * Consumes the partitions this instance owns. Every third of the lease time it says it is alive
 * and renews its leases; a lease it could not renew in time is dropped at once, before it can
 * expire, so two instances never consume one partition together. Apart from that it balances:
 * with n live instances it holds ⌈P/n⌉ partitions, taking free ones and handing one extra
 * partition over per round (after settling what it can). It first waits half a lease time, so
 * that instances started together see each other before taking partitions. A dead instance's
 * leases expire and are taken within one lease time; its unacknowledged messages come back to the
 * new owner (NATS: after the ack wait; Redis: claimed at once), which applies them first.
 */
export function createPartitionedSource(options: PartitionedSourceOptions): BrokerSource {
  const owned = new Map<number, Owned>();
  const renewedAt = new Map<number, number>();
  /** Partitions whose lease went unrenewed too long while messages kept coming: dropped next. */
  const lapsed = new Set<number>();
  const stopping = new AbortController();
  let store: LeaseStore | undefined;
  let members = 1;
  let queue: Promise<unknown> = Promise.resolve();
  const tick = Math.max(100, Math.floor(options.leaseMillis / 3));
  /** Ownership changes one at a time (renewals and balancing run side by side). */
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };
  const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));
  options.meter
    ?.createObservableGauge('agent_bridge.partitions.owned', {
      description: 'Partitions this instance holds leases on',
      unit: '{partition}',
    })
    .addCallback((result) => result.observe(owned.size));
  const changes = options.meter?.createCounter('agent_bridge.partitions.changes', {
    description: 'Partition ownership changes of this instance',
    unit: '{partition}',
  });
  const changed = (change: 'taken' | 'handed_over' | 'lost') =>
    changes?.add(1, { 'agent_bridge.partition.change': change });
  // Each owned partition's lag, refreshed with the leases.
  const lags = new Map<number, number>();
  options.meter
    ?.createObservableGauge('agent_bridge.partitions.lag', {
      description: 'Messages of an owned partition not yet delivered to this instance',
      unit: '{message}',
    })
    .addCallback((result) => {
      for (const [p, lag] of lags)
        if (owned.has(p)) result.observe(lag, { 'agent_bridge.partition': String(p) });
    });
  const takeovers = options.meter?.createHistogram('agent_bridge.partitions.takeover.duration', {
    description: 'From taking a partition lease to reading the partition, its runs restored',
    unit: 's',
    advice: { explicitBucketBoundaries: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] },
  });

  /** Renewed recently enough that the lease is surely still held (it cannot have expired). */
  const held = (p: number) =>
    owned.has(p) && Date.now() - (renewedAt.get(p) ?? 0) <= options.leaseMillis * 0.8;

  const stopPartition = async (p: number) => {
    const entry = owned.get(p);
    if (entry === undefined) return;
    owned.delete(p);
    renewedAt.delete(p);
    lapsed.delete(p);
    entry.source.stop();
    await entry.running.catch(() => undefined);
    return entry;
  };

  return {
    description: options.description,
    keepAliveMillis: options.keepAliveMillis,
    async open() {
      store = await options.store();
    },
    async run(onMessage, canPull) {
      if (store === undefined) throw new Error('open() first');
      const leases = store;
      const startedAt = Date.now();
      const take = async (p: number) => {
        const takenAt = performance.now();
        const source = options.partitionSource(p);
        await source.open();
        await options.beforeTake(p).catch((error: unknown) => {
          void source.close().catch(() => undefined);
          throw error;
        });
        // A message is applied only while the lease is surely held: after a pause of the event
        // loop (a stalled process) the lease may have expired and the partition moved on, so the
        // message is left to the next owner and the partition dropped.
        const running = source.run((text, delivery) => {
          if (lapsed.has(p) || !held(p)) {
            lapsed.add(p);
            delivery.release?.();
            return;
          }
          onMessage(text, { ...delivery, partition: p });
        }, canPull);
        owned.set(p, { source, running, since: Date.now() });
        renewedAt.set(p, Date.now());
        changed('taken');
        takeovers?.record((performance.now() - takenAt) / 1000);
        options.report(`owns partition ${p} of ${options.partitions}`);
      };
      const drop = async (p: number, why: string) => {
        const entry = await stopPartition(p);
        options.dropped(p);
        await entry?.source.close().catch(() => undefined);
        changed('lost');
        options.report(`lost partition ${p}: ${why}`);
      };
      const handOver = async (p: number) => {
        const entry = await stopPartition(p);
        await options.beforeRelease(p).catch(() => undefined);
        options.dropped(p);
        await entry?.source.close().catch(() => undefined);
        await leases.release(p);
        changed('handed_over');
        options.report(`handed partition ${p} over`);
      };
      const renew = async () => {
        members = await leases.heartbeat();
        for (const [p, entry] of owned) {
          const lag = await entry.source.lag?.().catch(() => undefined);
          if (lag === undefined) lags.delete(p);
          else lags.set(p, lag);
        }
        for (const p of [...owned.keys()]) {
          const ok = await leases.renew(p).catch(() => false);
          if (ok) renewedAt.set(p, Date.now());
          // Not renewed, or renewed too long ago to be sure it is still ours: stop before it expires.
          if (!ok || !held(p) || lapsed.has(p))
            await exclusive(() =>
              drop(
                p,
                ok ? 'its lease could not be renewed in time' : 'its lease expired or was taken',
              ),
            );
        }
      };
      const balance = async () => {
        if (Date.now() - startedAt < options.leaseMillis / 2) return;
        const target = Math.ceil(options.partitions / members);
        if (owned.size > target) {
          const p = Math.max(...owned.keys());
          await exclusive(() => handOver(p));
          return;
        }
        // Start the search at a place of this instance's own, so that instances starting together
        // do not all race for the same partitions.
        const start = Math.floor(Math.random() * options.partitions);
        for (let k = 0; k < options.partitions && owned.size < target; k += 1) {
          const p = (start + k) % options.partitions;
          if (owned.has(p) || stopping.signal.aborted) continue;
          await exclusive(async () => {
            if (!(await leases.acquire(p))) return;
            try {
              await take(p);
            } catch (error) {
              await leases.release(p);
              options.report(`cannot read partition ${p}: ${describe(error)}`);
            }
          });
        }
      };
      const loop = async (work: () => Promise<void>, what: string) => {
        while (!stopping.signal.aborted) {
          await work().catch((error: unknown) =>
            options.report(`partition ${what} failed (retrying): ${describe(error)}`),
          );
          await pause(tick, stopping.signal);
        }
      };
      await Promise.all([loop(renew, 'lease renewal'), loop(balance, 'balancing')]);
      await Promise.all([...owned.values()].map((o) => o.running.catch(() => undefined)));
    },
    stop() {
      stopping.abort();
      for (const entry of owned.values()) entry.source.stop();
    },
    async close() {
      await queue;
      for (const [p, entry] of [...owned]) {
        owned.delete(p);
        await entry.source.close().catch(() => undefined);
        // What is still held comes back to the next owner, which can take over at once.
        await store?.release(p).catch(() => undefined);
      }
      await store?.close().catch(() => undefined);
    },
  };
}
