import type { BrokerSource } from '../sources/broker-source.js';
import { fencedDelivery } from './fenced-delivery.js';
import type { LeaseStore } from './lease-store.js';
import { createPartitionMetrics } from './partition-metrics.js';
import { repeatEvery } from './repeat-every.js';
import { actWindow, createOwnership, mayAct } from './ownership.js';
import type { Ownership } from './ownership.js';
import type { PartitionedSourceOptions } from './partitioned-source-options.js';

/**
 * Consumes the partitions this instance owns, following the protocol of docs/scaling-out.md
 * ("Partition ownership"). Each ownership is an object of its own (see `ownership.ts`), so that
 * nothing done for an earlier ownership of a partition (a message handler, a late renewal, an
 * acknowledgement) can touch a later one.
 *
 * - Renewal runs on a schedule of its own, every quarter of the lease time, renewing every lease
 *   at once; how late each round started is measured. An ownership whose last renewal was sent
 *   more than 3/4 of the lease time ago is fenced at once (no message applied, no acknowledgement,
 *   no checkpoint save) and stepped down, before its lease can lapse.
 * - Balancing, membership and lag run on their own schedule: with n live instances it holds
 *   ⌈P/n⌉ partitions, taking free ones and handing one extra partition over per round once it has
 *   had too many two rounds in a row. A partition it lost or handed over is not taken back for
 *   one to two lease times, so an instance cannot take and lose one partition in a loop.
 * - It first waits half a lease time, so that instances started together see each other.
 *
 * A dead instance's leases expire and are taken within one lease time; its unacknowledged
 * messages come back to the new owner (NATS: after the ack wait; Redis: claimed at once).
 */
export function createPartitionedSource(options: PartitionedSourceOptions): BrokerSource {
  const { leaseMillis } = options;
  const random = options.random ?? Math.random;
  const owned = new Map<number, Ownership>();
  /** Partition → time before which it is not taken again (lost or handed over recently). */
  const coolingUntil = new Map<number, number>();
  const stopping = new AbortController();
  const closing = new AbortController();
  let store: LeaseStore | undefined;
  let members = 1;
  let queue: Promise<unknown> = Promise.resolve();
  const balanceEvery = Math.max(100, Math.floor(leaseMillis / 3));
  const renewEvery = Math.max(50, Math.floor(leaseMillis / 4));
  /** Ownership changes one at a time. */
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };
  const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));
  const reading = () => [...owned.values()].filter((o) => o.state === 'reading');
  // Each owned partition's lag, refreshed with the membership.
  const lags = new Map<number, number>();
  const metrics = createPartitionMetrics(
    options.meter,
    () => reading().length,
    () => new Map([...lags].filter(([p]) => owned.has(p))),
  );
  const changed = metrics.changed;
  const coolDown = (p: number, leases: number) =>
    coolingUntil.set(p, Date.now() + leaseMillis * leases * (1 + random()));

  /** Stops reading `p`: resolves once the batch in hand is applied (or left). */
  const stopReading = async (own: Ownership) => {
    own.source.stop();
    await own.running?.catch(() => undefined);
  };

  let leases: LeaseStore | undefined;
  /** The renewal loop, which runs from `run()` until `close()`. */
  let renewing: Promise<void> | undefined;

  /** Lost, or not renewed in time: fenced at once, then stopped and forgotten (in turn). */
  const stepDown = (own: Ownership, why: string) => {
    if (own.fenced) return;
    own.fenced = true;
    own.state = 'stepping_down';
    own.source.stop();
    coolDown(own.p, 1);
    void exclusive(async () => {
      await stopReading(own);
      options.dropped(own.p);
      await own.source.close().catch(() => undefined);
      if (owned.get(own.p) === own) owned.delete(own.p);
      // Still ours if it was stepped down for lateness: the next owner need not wait for it.
      await leases?.release(own.p).catch(() => undefined);
      changed('lost');
      options.report(`lost partition ${own.p} (epoch ${own.epoch}): ${why}`);
    });
  };

  const renewAll = async (store: LeaseStore) => {
    await Promise.all(
      [...owned.values()].map(async (own) => {
        if (own.fenced) return;
        const sentAt = Date.now();
        const ok = await store.renew(own.p).catch(() => false);
        if (!ok) stepDown(own, 'its lease expired or was taken');
        // The lease's new time runs from no earlier than when the renewal was sent.
        else own.renewedAt = Math.max(own.renewedAt, sentAt);
      }),
    );
    for (const own of owned.values())
      if (!own.fenced && !mayAct(own, leaseMillis))
        stepDown(own, 'its lease could not be renewed in time');
  };

  return {
    description: options.description,
    keepAliveMillis: options.keepAliveMillis,
    async open() {
      store = await options.store();
      leases = store;
    },
    readToEnd(p) {
      // Partitions being taken count (nothing of them read yet); those let go no longer do.
      let since = Infinity;
      for (const own of p === undefined ? owned.values() : [owned.get(p)])
        if (own?.state === 'taking' || own?.state === 'reading')
          since = Math.min(since, own.readToEndSince);
      return since;
    },
    mayAct(p) {
      const own = owned.get(p);
      if (own === undefined) return false;
      if (mayAct(own, leaseMillis)) return true;
      own.refused += 1;
      return false;
    },
    async run(onMessage, canPull, _readWindow, holdFor) {
      if (store === undefined) throw new Error('open() first');
      const leaseStore = store;
      const startedAt = Date.now();
      const take = async (p: number, epoch: number, acquiredAt: number) => {
        const takenAt = performance.now();
        const drained = (sentAt: number) => {
          own.readToEndSince = Math.max(own.readToEndSince, sentAt);
        };
        const own = createOwnership(p, epoch, options.partitionSource(p, drained), acquiredAt);
        owned.set(p, own);
        try {
          await own.source.open();
          await options.beforeTake(p);
        } catch (error) {
          own.fenced = true;
          owned.delete(p);
          void own.source.close().catch(() => undefined);
          await leaseStore.release(p).catch(() => undefined);
          coolDown(p, 1);
          options.report(`cannot read partition ${p}: ${describe(error)}`);
          return;
        }
        // Stepped down meanwhile: the step-down, queued behind this, closes it.
        if (own.fenced) return;
        own.state = 'reading';
        // A message is applied only while this ownership surely holds the lease; otherwise it
        // is left to the next owner and the ownership steps down.
        own.running = own.source.run(
          (text, delivery) => {
            if (own.state !== 'reading' || !mayAct(own, leaseMillis)) {
              delivery.release?.();
              // Read again after a gap (a stalled event loop): what is released now would come
              // back behind what follows it, so the partition goes too, to be read in order again.
              if (own.state === 'reading')
                stepDown(own, 'a message arrived after its lease could have lapsed');
              return;
            }
            onMessage(text, fencedDelivery(own, delivery, leaseMillis));
          },
          canPull,
          // Reads end while the lease surely holds: what a read takes reaches the next owner.
          () => (own.state === 'reading' ? actWindow(own, leaseMillis) : -1),
          // What this partition lost holds its own runs only.
          holdFor && ((millis) => holdFor(millis, p)),
        );
        // Reading that ends by an error, not by a stop, would leave the partition owned and
        // unread for good: it goes, to be taken again (here or elsewhere) after a cool-down.
        own.running.catch((error: unknown) => {
          if (own.state === 'reading') stepDown(own, `reading it failed: ${describe(error)}`);
        });
        changed('taken');
        metrics.tookOver((performance.now() - takenAt) / 1000);
        options.report(`owns partition ${p} of ${options.partitions} (epoch ${epoch})`);
      };
      const handOver = async (own: Ownership) => {
        if (own.fenced) return;
        own.state = 'handing_over';
        await stopReading(own);
        // Renewals go on meanwhile: what is settled here is still acknowledged under the lease.
        await options.beforeRelease(own.p).catch(() => undefined);
        own.fenced = true;
        options.dropped(own.p);
        await own.source.close().catch(() => undefined);
        if (owned.get(own.p) === own) owned.delete(own.p);
        await leaseStore.release(own.p).catch(() => undefined);
        coolDown(own.p, 2);
        changed('handed_over');
        options.report(
          own.refused === 0
            ? `handed partition ${own.p} over (epoch ${own.epoch})`
            : `handed partition ${own.p} over (epoch ${own.epoch}) late: its lease could have lapsed meanwhile, so ${own.refused} acknowledgements or checkpoint saves were left to the next owner, as after a crash`,
        );
      };
      let tooMany = 0;
      const balance = async () => {
        members = await leaseStore.heartbeat();
        for (const [p, own] of owned) {
          const lag = await own.source.lag?.().catch(() => undefined);
          if (lag === undefined) lags.delete(p);
          else lags.set(p, lag);
        }
        if (Date.now() - startedAt < leaseMillis / 2) return;
        const target = Math.ceil(options.partitions / members);
        const mine = reading();
        tooMany = mine.length > target ? tooMany + 1 : 0;
        // Twice in a row: a count taken while an instance joins or leaves moves nothing.
        if (tooMany >= 2) {
          tooMany = 0;
          const last = mine.reduce((a, b) => (b.p > a.p ? b : a));
          await exclusive(() => handOver(last));
          return;
        }
        // Start the search at a place of this instance's own, so that instances starting together
        // do not all race for the same partitions.
        const start = Math.floor(random() * options.partitions);
        for (let k = 0; k < options.partitions && owned.size < target; k += 1) {
          const p = (start + k) % options.partitions;
          if (owned.has(p) || stopping.signal.aborted) continue;
          if ((coolingUntil.get(p) ?? 0) > Date.now()) continue;
          await exclusive(async () => {
            if (owned.has(p) || stopping.signal.aborted) return;
            const acquiredAt = Date.now();
            const epoch = await leaseStore.acquire(p);
            if (epoch !== undefined) await take(p, epoch, acquiredAt);
          });
        }
      };
      const failed = (what: string) => (error: unknown) =>
        options.report(`partition ${what} failed (retrying): ${describe(error)}`);
      // Renewals go on until close(): a graceful shutdown acknowledges under the lease.
      renewing = repeatEvery(() => renewAll(leaseStore), {
        everyMillis: renewEvery,
        signal: closing.signal,
        failed: failed('lease renewal'),
        late: metrics.renewedLate,
      });
      await repeatEvery(balance, {
        everyMillis: balanceEvery,
        signal: stopping.signal,
        failed: failed('balancing'),
      });
      // Stopping is a hand-over of every partition: its open runs checkpointed, its ended runs
      // acknowledged, its lease released, so that the next owner records nothing again.
      for (const own of [...owned.values()]) await exclusive(() => handOver(own));
    },
    stop() {
      stopping.abort();
    },
    async close() {
      stopping.abort();
      await queue;
      closing.abort();
      await renewing;
      for (const own of [...owned.values()]) {
        own.fenced = true;
        owned.delete(own.p);
        await own.source.close().catch(() => undefined);
        // What is still held comes back to the next owner, which can take over at once.
        await store?.release(own.p).catch(() => undefined);
      }
      await store?.close().catch(() => undefined);
    },
  };
}
