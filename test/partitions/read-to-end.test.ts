// Behind routers, an instance puts a drain mark in effect for a partition once it was read to its
// end by a read sent after the mark was heard (routed-marks.ts). That rests on what sources say of
// their reads. Invariant: when a source says everything stored before time T has been handed over
// (a NATS or Redis source's `drained`, a partitioned source's `readToEnd()` for all its partitions
// or `readToEnd(p)` for one), every message whose publish the broker acknowledged before T has
// been handed over. Real NATS JetStream and Redis; batch sizes, bursts, their spacing and a
// handler that keeps the event loop busy are generated.
import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import fc from 'fast-check';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import type { BrokerSource } from '../../src/sources/broker-source.js';
import { createNatsSource } from '../../src/sources/nats-source.js';
import { deleteNatsStream, NATS_URL, REDIS_URL } from '../helpers/brokers.js';
import { redisPartitionInstance } from '../helpers/redis-partitions.js';
import { waitFor } from '../helpers/wire-spans.js';

interface Plan {
  readonly batch: number;
  /** Messages published together, then a pause of `after` ms. */
  readonly bursts: readonly { readonly size: number; readonly after: number }[];
  /** Every `busyEvery`-th message handed over keeps the event loop busy for `busyMillis`. */
  readonly busyEvery: number;
  readonly busyMillis: number;
}

/**
 * A partition's lease: its owner acts within 3/4 of it after each renewal (sent every quarter of
 * it), far beyond a busy batch (16 × 25 ms) and beyond the stalls of a loaded machine. With 2.5 s,
 * a renewal held up for more than 1.25 s (the whole test suite running on 2 cores) made the
 * instance step down, as it must when it cannot tell its lease still holds; this property speaks
 * only of partitions kept. A longer lease is slower to take partitions (they are balanced every
 * third of it), so the test takes longer with it.
 */
const LEASE_MILLIS = 6_000;

const plans = fc.record({
  batch: fc.integer({ min: 1, max: 16 }),
  bursts: fc.array(
    fc.record({ size: fc.integer({ min: 1, max: 30 }), after: fc.integer({ min: 0, max: 120 }) }),
    { minLength: 3, maxLength: 10 },
  ),
  busyEvery: fc.integer({ min: 1, max: 12 }),
  busyMillis: fc.integer({ min: 0, max: 25 }),
});

function busy(millis: number): void {
  const until = Date.now() + millis;
  while (Date.now() < until) {
    // A busy process: nothing else runs here meanwhile; the publisher's thread runs on.
  }
}

/** What was published (acknowledged by the broker at `ackedAt`), handed over, and said read. */
class Ledger {
  /** When the broker acknowledged each message, and which target (partition) it went to. */
  readonly ackedAt = new Map<string, { at: number; target: number }>();
  /** Each message's place in the order it was handed over. */
  readonly handed = new Map<string, number>();
  /**
   * Each time a source said so: everything stored before `since` in the partitions it owned
   * (`owned`; undefined: the one it reads), with `handed` messages handed over by then.
   */
  readonly said: { since: number; handed: number; owned: ReadonlySet<number> | undefined }[] = [];
  published: number | undefined;

  readTo(since: number, owned?: ReadonlySet<number>): void {
    this.said.push({ since, handed: this.handed.size, owned: owned && new Set(owned) });
  }

  /** What broke the invariant, and how many sayings covered something published. */
  check(): { broken: string[]; covering: number } {
    const broken: string[] = [];
    let covering = 0;
    for (const { since, handed, owned } of this.said) {
      const before = [...this.ackedAt]
        .filter(([, m]) => owned === undefined || owned.has(m.target))
        .map(([text, m]) => [text, m.at] as const)
        .filter(([, at]) => at < since);
      if (before.length > 0) covering += 1;
      const missing = before.filter(([text]) => (this.handed.get(text) ?? Infinity) >= handed);
      if (missing.length > 0)
        broken.push(
          `said read to ${since} with ${missing.length} message(s) acknowledged before it not handed over (${missing[0]![0]} at ${missing[0]![1]})`,
        );
    }
    return { broken: broken.slice(0, 5), covering };
  }
}

/** Publishes the plan from a thread of its own while `source` reads; resolves once all is read. */
async function readAll(
  source: BrokerSource,
  plan: Plan,
  ledger: Ledger,
  publisher: { broker: 'nats' | 'redis'; url: string; targets: string[] },
  /** Publishing starts once this holds (a partitioned source owns its partitions). */
  ready: () => boolean = () => true,
): Promise<void> {
  await source.open();
  const running = source.run(
    (text, delivery) => {
      ledger.handed.set(text, ledger.handed.size);
      delivery.ack();
      if (ledger.handed.size % plan.busyEvery === 0) busy(plan.busyMillis);
    },
    () => true,
  );
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 10));
  const worker = new Worker(new URL('../helpers/timed-publisher.mjs', import.meta.url), {
    workerData: { ...publisher, bursts: plan.bursts },
  });
  try {
    await new Promise<void>((resolve, reject) => {
      type Posted = { text: string; ackedAt: number; target: number } | { done: number };
      worker.on('message', (m: Posted) => {
        if ('done' in m) {
          ledger.published = m.done;
          resolve();
        } else ledger.ackedAt.set(m.text, { at: m.ackedAt, target: m.target });
      });
      worker.on('error', reject);
    });
    await waitFor(
      () => ledger.handed.size === ledger.published,
      20_000,
      'every message published to be handed over',
    );
  } finally {
    await worker.terminate();
    source.stop();
    await running;
    await source.close();
  }
}

describe('a source that says it read to the end', () => {
  it('NATS: has handed over every message stored before the read it names was sent', async () => {
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(plans, async (plan) => {
        const id = randomUUID().slice(0, 8);
        const stream = `AOB_RTE_${id}`;
        const subject = `rte.${id}`;
        const nc = await connect({ servers: NATS_URL });
        const ledger = new Ledger();
        try {
          await (await jetstreamManager(nc)).streams.add({ name: stream, subjects: [subject] });
          const source = createNatsSource({
            url: NATS_URL,
            stream,
            subject,
            durable: `bridge-${id}`,
            ackWaitMillis: 30_000,
            maxAckPending: 10_000,
            batchSize: plan.batch,
            drained: (_at, sentAt) => ledger.readTo(sentAt),
          });
          await readAll(source, plan, ledger, {
            broker: 'nats',
            url: NATS_URL,
            targets: [subject],
          });
        } finally {
          await nc.drain();
          await deleteNatsStream(stream);
        }
        const { broken, covering } = ledger.check();
        expect(broken).toEqual([]);
        checked += covering;
      }),
      // Real brokers: the first failing plan is reported as found, not shrunk.
      { numRuns: 6, endOnFailure: true },
    );
    // The reads said so with messages published before them, not only before anything was.
    expect(checked).toBeGreaterThan(0);
  }, 120_000);

  it('Redis, partitioned: has handed over every entry of every partition it owns stored before the time it names', async () => {
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(plans, fc.integer({ min: 1, max: 3 }), async (plan, partitions) => {
        const key = `aob-rte-${randomUUID().slice(0, 8)}`;
        const client = createClient({ url: REDIS_URL });
        await client.connect();
        const ledger = new Ledger();
        const owned = new Set<number>();
        const letGo: string[] = [];
        const source = redisPartitionInstance({
          key,
          id: 'only',
          partitions,
          // Long enough that no busy handler outlasts it: a partition let go is not read to its
          // end by this instance, and the invariant speaks of those it owns.
          leaseMillis: LEASE_MILLIS,
          batchSize: plan.batch,
          report: (message) => {
            const taken = /^owns partition (\d+)/.exec(message);
            if (taken !== null) owned.add(Number(taken[1]));
            // Alone, it hands partitions over only when stopped, after the reading checked here.
            else if (message.startsWith('lost partition')) letGo.push(message);
          },
          // Once it owns them all, the time it names covers every entry published.
          drained: () => {
            if (owned.size < partitions) return;
            ledger.readTo(source.readToEnd!(), owned);
            // And each partition by itself (`readToEnd(p)`), which a lagging other holds not back.
            for (const p of owned) ledger.readTo(source.readToEnd!(p), new Set([p]));
          },
        });
        // Nothing owned: nothing holds a mark back.
        expect(source.readToEnd?.()).toBe(Infinity);
        try {
          await readAll(
            source,
            plan,
            ledger,
            {
              broker: 'redis',
              url: REDIS_URL,
              targets: Array.from({ length: partitions }, (_, p) => `${key}:${p}`),
            },
            () => owned.size === partitions,
          );
        } finally {
          const keys = await client.keys(`${key}*`);
          if (keys.length > 0) await client.del(keys);
          client.destroy();
        }
        expect(letGo).toEqual([]);
        const { broken, covering } = ledger.check();
        expect(broken).toEqual([]);
        checked += covering;
      }),
      // Real brokers: the first failing plan is reported as found, not shrunk.
      { numRuns: 6, endOnFailure: true },
    );
    expect(checked).toBeGreaterThan(0);
  }, 120_000);
});
