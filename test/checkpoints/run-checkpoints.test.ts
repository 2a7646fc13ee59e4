// Checkpoints of open runs in the real Redis of this machine: a run's first messages are
// acknowledged once its checkpoint is saved; another instance rebuilds the run from the checkpoint
// and the messages not acknowledged, to the same spans; once durable, the checkpoint becomes a
// `finished` marker before the last messages are acknowledged, and a third instance makes no
// second run of them. The deliveries are plain objects recording what the consumer did with them
// (the brokers' own messages are exercised end to end in test/e2e/long-runs.test.ts).
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import type { DataPoint, Histogram } from '@opentelemetry/sdk-metrics';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createRedisCheckpointStore } from '../../src/checkpoints/redis-checkpoint-store.js';
import { RunCheckpoints } from '../../src/checkpoints/run-checkpoints.js';
import type { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import { DeliveryLedger } from '../../src/sources/delivery-ledger.js';
import type { Delivery } from '../../src/sources/delivery.js';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import { publishedAsBehestDoes, seeded } from '../helpers/behest-delivery.js';
import { behest, RUN_A, toolRun } from '../helpers/behest-lines.js';
import { REDIS_URL } from '../helpers/brokers.js';
import { createHarness } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';
import type { AgentOtelSinkOptions } from '../../src/index.js';
import { spansByTrace } from '../../src/telemetry/export/export-watcher.js';

const prefix = `aob:checkpoints:${randomUUID().slice(0, 8)}`;
const stores: CheckpointStore[] = [];

afterAll(async () => {
  for (const store of stores) await store.close();
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 }))
    if (keys.length > 0) await client.del(keys);
  client.destroy();
});

interface Message {
  readonly line: string;
  readonly delivery: Delivery & { settled: 'held' | 'ack' | 'nak' | 'release' };
}

/** One bridge instance: a sink, a ledger and its checkpoints on the shared store. */
async function instance(
  everyMessages = 10,
  partition?: number,
  sinkOptions: AgentOtelSinkOptions = {},
  url = REDIS_URL,
) {
  const store = await createRedisCheckpointStore({ url, prefix, ttlMillis: 60_000 });
  stores.push(store);
  const later: { checkpoints?: RunCheckpoints } = {};
  const ledger = new DeliveryLedger({
    outage: () => undefined,
    recovered: () => undefined,
    forgetRun: (runId) => {
      h.sink.forgetRun(runId);
      later.checkpoints?.rebuild(runId);
    },
    checkpointedRunDurable: (runId) => later.checkpoints!.durable(runId),
  });
  const h: Harness = createHarness(
    {
      ...sinkOptions,
      onRunEnd: (run) => {
        ledger.runEnded(run);
        later.checkpoints?.runEnded(run.runId);
      },
    },
    { onAccepted: (event, dialect) => later.checkpoints?.accepted(event, dialect) },
  );
  const reports: string[] = [];
  const checkpoints = new RunCheckpoints({
    store,
    sink: h.sink,
    ledger,
    everyMessages,
    content: { capture: false, maxTextChars: 8192 },
    report: (message) => reports.push(message),
  });
  later.checkpoints = checkpoints;
  const deliver = (line: string): Message => {
    const delivery = {
      settled: 'held' as Message['delivery']['settled'],
      ack: () => (delivery.settled = 'ack'),
      nak: () => (delivery.settled = 'nak'),
      release: () => (delivery.settled = 'release'),
      ...(partition === undefined ? {} : { partition }),
    };
    checkpoints.beforeMessage(partition);
    const result = h.sink.handleJson(line);
    ledger.settle(delivery, result);
    checkpoints.settled(delivery, result);
    return { line, delivery };
  };
  /** What an export does: every span so far and a metric collection taken now reach the collector. */
  const exportNow = () => {
    const spans = spansByTrace(h.exporter.getFinishedSpans());
    h.exporter.reset();
    exported.push(...spans.keys());
    ledger.spansExported(spans);
    const collectedAt = Date.now() + 1;
    ledger.metricsExported(collectedAt);
    checkpoints.metricsExported(collectedAt);
    return Promise.resolve();
  };
  const exported: string[] = [];
  return { h, ledger, checkpoints, store, deliver, reports, exportNow };
}

/** toolRun with 40 text deltas in its first model call. */
function longRun(): string[] {
  const lines = toolRun();
  const deltas = Array.from({ length: 40 }, (_, i) =>
    behest('TextDelta', RUN_A, `00.${300 + i * 5}`, { delta: `w${i} ` }),
  );
  return [...lines.slice(0, 3), ...deltas, ...lines.slice(3)];
}

const shape = (h: Harness) =>
  h
    .spans()
    .map((s) =>
      JSON.stringify([
        s.name,
        s.spanContext().spanId,
        s.startTime,
        s.endTime,
        s.attributes,
        s.events,
        s.status,
      ]),
    )
    .sort();

/**
 * Every metric point of the runs reduced to a number per series (a counter's value, a histogram's
 * count and sum), so that what two instances recorded can be added up and set against one
 * instance's.
 */
async function metricTotals(harnesses: readonly Harness[]): Promise<Map<string, number>> {
  const totals = new Map<string, number>();
  const add = (key: string, value: number) => totals.set(key, (totals.get(key) ?? 0) + value);
  for (const h of harnesses)
    for (const metric of await h.metrics())
      for (const point of metric.dataPoints as DataPoint<number | Histogram>[]) {
        const series = `${metric.descriptor.name} ${JSON.stringify(point.attributes)}`;
        // The bridge's own intake counts deliveries, redeliveries included.
        if (metric.descriptor.name.startsWith('agent_bridge.')) continue;
        if (typeof point.value === 'number') add(series, point.value);
        else {
          add(`${series} count`, point.value.count);
          add(`${series} sum`, point.value.sum ?? 0);
        }
      }
  // Sums of durations added in another order differ in the last bits.
  for (const [key, value] of totals)
    if (value === 0) totals.delete(key);
    else totals.set(key, Number(value.toPrecision(12)));
  return totals;
}

describe('run checkpoints', () => {
  it('keeps messages held while checkpoints cannot be saved or marked finished, says so once, and settles them once the broker takes the writes', async () => {
    // The broker refuses the writes: a Redis user whose ACL denies SET (NOPERM), then allowed.
    const admin = createClient({ url: REDIS_URL });
    await admin.connect();
    const user = `aob-cp-${randomUUID().slice(0, 8)}`;
    const deny = () =>
      admin.sendCommand(['ACL', 'SETUSER', user, 'on', '>pw', '~*', '+@all', '-set']);
    const allow = () => admin.sendCommand(['ACL', 'SETUSER', user, '+set']);
    await deny();
    try {
      const url = new URL(REDIS_URL);
      url.username = user;
      url.password = 'pw';
      const a = await instance(5, undefined, {}, url.toString());
      const lines = longRun();
      // The run's first 20 messages: the saves they call for are refused.
      const first = lines.slice(0, 20).map((line) => a.deliver(line));
      await a.checkpoints.idle();
      expect(first.every((m) => m.delivery.settled === 'held')).toBe(true);
      expect(a.checkpoints.counts.failed).toBeGreaterThanOrEqual(1);
      expect(a.checkpoints.counts.saved).toBe(0);
      expect(a.reports.filter((r) => r.startsWith('cannot save a run checkpoint'))).toHaveLength(1);
      expect(a.reports[0]).toMatch(/NOPERM/);
      // Allowed again: the next save covers every message held so far.
      await allow();
      const next = lines.slice(20, 25).map((line) => a.deliver(line));
      await a.checkpoints.idle();
      expect(a.checkpoints.counts.saved).toBeGreaterThan(0);
      expect(
        [...first, ...next].filter((m) => m.delivery.settled === 'ack').length,
      ).toBeGreaterThanOrEqual(20);
      // Refused again: the run ends, is exported, but its checkpoint cannot say "finished", so
      // its last messages stay held, and are acknowledged at the first export after it can.
      await deny();
      const rest = lines.slice(25).map((line) => a.deliver(line));
      await a.exportNow();
      // The marker was refused (said), and its run's last messages are still held after it.
      await vi.waitFor(() =>
        expect(a.reports.filter((r) => r.startsWith('cannot mark a finished run'))).toHaveLength(1),
      );
      await a.checkpoints.idle();
      expect(rest.some((m) => m.delivery.settled === 'held')).toBe(true);
      await allow();
      await a.exportNow();
      await vi.waitFor(() => expect(rest.filter((m) => m.delivery.settled !== 'ack')).toEqual([]));
      expect(a.checkpoints.counts.finished).toBe(1);
    } finally {
      await admin.sendCommand(['ACL', 'DELUSER', user]);
      await admin.quit();
    }
  });

  // Saved every 3 messages, a save is under way when most hand-overs begin: it lands during
  // the hand-over, which waits for it.
  it.each([1000, 3])(
    'hands an open run over at every event with each metric recorded once across the two owners (saved every %i messages)',
    async (every) => {
      const lines = longRun().map((line) => line.replaceAll(RUN_A, `${RUN_A.slice(0, -4)}cafe`));
      const straight = createHarness();
      straight.feed(lines.join('\n'));
      await straight.sink.shutdown();
      const expected = await metricTotals([straight]);
      expect(expected.size).toBeGreaterThan(5);
      let landedDuringHandOver = 0;
      for (let cut = 1; cut < lines.length; cut += 1) {
        // A owns partition 0 and reads the run's first `cut` messages; then it hands the partition
        // over as a partitioned source does: reading stopped, open runs checkpointed, let go.
        const a = await instance(every, cut);
        const inA = lines.slice(0, cut).map((line) => a.deliver(line));
        if (a.checkpoints.savesInFlight > 0) landedDuringHandOver += 1;
        await a.checkpoints.handOver(cut, a.exportNow);
        for (const runId of a.ledger.releasePartition(cut)) {
          a.h.sink.dropRun(runId);
          a.checkpoints.drop(runId);
        }
        // B takes the partition: the run from its checkpoint, then what A left unacknowledged.
        const b = await instance(1000, cut);
        await b.checkpoints.restore(cut);
        const left = inA.filter((m) => m.delivery.settled !== 'ack').map((m) => m.line);
        for (const line of [...left, ...lines.slice(cut)]) b.deliver(line);
        await b.h.sink.shutdown();
        expect(shape(b.h), `cut after ${cut}`).toEqual(shape(straight));
        expect(await metricTotals([a.h, b.h]), `cut after ${cut}`).toEqual(expected);
      }
      if (every < 10) expect(landedDuringHandOver).toBeGreaterThan(lines.length / 2);
    },
  );

  it('hands interleaved runs, displaced and duplicated as behest publishes them, over at random cuts, each span and metric once', async () => {
    // A run stays open for 30 input events after its terminal event (as for a log, counted in
    // events so that the test does not depend on time): what behest publishes after the terminal
    // event meets the run open, here or at the next owner, as the grace period does live.
    const grace: AgentOtelSinkOptions = {
      countWindowsInEvents: true,
      lateGraceEvents: 30,
      lateGraceMillis: 600_000,
    };
    // Seed 22 (cut after 108 of 174) found that replaying other runs' checkpoints used up a
    // restored run's grace period counted in events, so a displaced commit came after it.
    for (let seed = 1; seed <= 80; seed += 1) {
      const random = seeded(seed);
      const lines = publishedAsBehestDoes(
        createDemoLines(6, Date.UTC(2025, 7, 1) + seed * 60_000),
        0,
        seed,
      );
      const straight = createHarness(grace);
      straight.feed(lines.join('\n'));
      await straight.sink.shutdown();
      const cut = 1 + Math.floor(random() * (lines.length - 1));
      const p = 1000 + seed;
      const a = await instance(1 + Math.floor(random() * 20), p, grace);
      const inA = lines.slice(0, cut).map((line) => a.deliver(line));
      // The hand-over: an export makes the ended runs durable, the open ones are checkpointed.
      const spansOfA = shape(a.h);
      await a.checkpoints.handOver(p, a.exportNow);
      await vi.waitFor(() =>
        expect(inA.filter((m) => m.delivery.settled === 'held').length).toBe(a.ledger.pending),
      );
      for (const runId of a.ledger.releasePartition(p)) {
        a.h.sink.dropRun(runId);
        a.checkpoints.drop(runId);
      }
      const b = await instance(1000, p, grace);
      await b.checkpoints.restore(p);
      const left = inA.filter((m) => m.delivery.settled !== 'ack').map((m) => m.line);
      for (const line of [...left, ...lines.slice(cut)]) b.deliver(line);
      await b.h.sink.shutdown();
      const context = `seed ${seed}, cut after ${cut} of ${lines.length}`;
      // A's spans (of runs it ended) and B's together: each of the straight run's, one content each.
      const exported = new Map<string, string>();
      for (const line of [...spansOfA, ...shape(b.h)]) {
        const id = (JSON.parse(line) as unknown[])[1] as string;
        expect(exported.get(id) ?? line, context).toBe(line);
        exported.set(id, line);
      }
      expect([...exported.values()].sort(), context).toEqual(shape(straight));
      expect(await metricTotals([a.h, b.h]), context).toEqual(await metricTotals([straight]));
    }
  });

  it('after a crash at a random point, loses no metric point and records again at most what the crashed owner exported', async () => {
    const grace: AgentOtelSinkOptions = {
      countWindowsInEvents: true,
      lateGraceEvents: 30,
      lateGraceMillis: 600_000,
    };
    for (let seed = 41; seed <= 80; seed += 1) {
      const random = seeded(seed);
      const lines = publishedAsBehestDoes(
        createDemoLines(6, Date.UTC(2025, 7, 2) + seed * 60_000),
        0,
        seed,
      );
      const straight = createHarness(grace);
      straight.feed(lines.join('\n'));
      await straight.sink.shutdown();
      const expected = await metricTotals([straight]);
      const cut = 1 + Math.floor(random() * (lines.length - 1));
      const p = 2000 + seed;
      // A checkpoints every few messages and exports now and then; it dies after `cut` messages,
      // what it recorded since its last export dying with it.
      const a = await instance(1 + Math.floor(random() * 20), p, grace);
      let exportedByA = new Map<string, number>();
      const inA: Message[] = [];
      for (const line of lines.slice(0, cut)) {
        inA.push(a.deliver(line));
        await a.checkpoints.idle();
        if (random() < 0.1) {
          await a.exportNow();
          await a.checkpoints.idle();
          exportedByA = await metricTotals([a.h]);
        }
      }
      const b = await instance(1000, p, grace);
      await b.checkpoints.restore(p);
      const left = inA.filter((m) => m.delivery.settled !== 'ack').map((m) => m.line);
      for (const line of [...left, ...lines.slice(cut)]) b.deliver(line);
      await b.h.sink.shutdown();
      const context = `seed ${seed}, crash after ${cut} of ${lines.length}`;
      const byB = await metricTotals([b.h]);
      for (const [series, value] of expected) {
        const total = (exportedByA.get(series) ?? 0) + (byB.get(series) ?? 0);
        expect(total, `${series} (${context})`).toBeGreaterThanOrEqual(value - 1e-9);
        expect(total, `${series} (${context})`).toBeLessThanOrEqual(
          value + (exportedByA.get(series) ?? 0) + 1e-9,
        );
      }
    }
  });

  it('acknowledges a run before it ends, rebuilds it elsewhere and never makes it twice', async () => {
    const lines = longRun();
    const straight = createHarness();
    straight.feed(lines.join('\n'));
    await straight.sink.shutdown();

    // Instance A takes the first 35 messages: checkpoints let it acknowledge most of them.
    const a = await instance();
    const inA: Message[] = [];
    for (const line of lines.slice(0, 35)) {
      inA.push(a.deliver(line));
      // One checkpoint save at a time, as messages arrive over time.
      await vi.waitFor(() => expect(a.checkpoints.savesInFlight).toBe(0));
    }
    expect(a.checkpoints.counts.saved).toBe(3);
    const acked = inA.filter((m) => m.delivery.settled === 'ack').length;
    expect(acked).toBe(30);
    expect(a.ledger.pending).toBe(5);
    expect(a.h.spans().filter((s) => s.name.startsWith('invoke_agent'))).toEqual([]);

    // A dies. B rebuilds the run from the checkpoint and what A had not acknowledged.
    const b = await instance();
    await b.checkpoints.restore(undefined);
    expect(b.checkpoints.counts.restored).toBe(1);
    const redelivered = [
      ...inA.filter((m) => m.delivery.settled === 'held').map((m) => m.line),
      ...lines.slice(35),
    ];
    const inB = redelivered.map((line) => b.deliver(line));
    await b.h.sink.shutdown();
    expect(shape(b.h)).toEqual(shape(straight));
    expect(await b.h.sum('agent.runs')).toBe(1);

    // Durable at the collector: the checkpoint says "finished" before the last messages go.
    b.ledger.spansExported(spansByTrace(b.h.spans()));
    b.ledger.metricsExported(Date.now() + 1000);
    await vi.waitFor(() => expect(inB.every((m) => m.delivery.settled === 'ack')).toBe(true));
    const { checkpoints } = await b.store.load('all');
    expect(checkpoints.map((c) => [c.runId, c.finished, c.events.length])).toEqual([
      [RUN_A, true, 0],
    ]);

    // A redelivery of its last messages to C (say B died before acknowledging) makes no run.
    const c = await instance();
    await c.checkpoints.restore(undefined);
    const again = redelivered.map((line) => c.h.sink.handleJson(line));
    expect(again.every((r) => r.outcome === 'late' || r.outcome === 'duplicate')).toBe(true);
    await c.h.sink.shutdown();
    expect(c.h.spans()).toEqual([]);
    expect([...a.reports, ...b.reports, ...c.reports]).toEqual([]);
  });

  it('rebuilds a checkpointed run from its checkpoint when its export fails', async () => {
    const lines = longRun().map((line) => line.replaceAll(RUN_A, `${RUN_A.slice(0, -4)}beef`));
    const straight = createHarness();
    straight.feed(lines.join('\n'));
    await straight.sink.shutdown();

    // One checkpoint: what is redelivered after it (26 messages) stays below the next one.
    const a = await instance(30);
    const delivered = lines.map((line) => a.deliver(line));
    await vi.waitFor(() => expect(a.checkpoints.counts.saved).toBe(1));
    expect(delivered.filter((m) => m.delivery.settled === 'ack')).toHaveLength(30);
    const refused = spansByTrace(a.h.spans());
    a.h.exporter.reset();
    // The collector refuses the run: its unacknowledged messages are redelivered, and the run
    // is rebuilt from its checkpoint first.
    a.ledger.spansFailed(refused, new Error('refused'));
    expect(delivered.filter((m) => m.delivery.settled === 'nak')).toHaveLength(lines.length - 30);
    const results = delivered
      .filter((m) => m.delivery.settled === 'nak')
      .map((m) => a.deliver(m.line));
    await a.h.sink.shutdown();
    expect(results.every((m) => m.delivery.settled === 'held')).toBe(true);
    expect(shape(a.h)).toEqual(shape(straight));
    expect(await a.h.sum('agent.runs')).toBe(1);
  });
});
