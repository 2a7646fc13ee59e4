// A run whose export failed is forgotten and rebuilt from its redelivered messages, while spans of
// the failed build may still be in flight and land after it; the runs of one trace (a parent and
// its sub-agents) end and export apart, their spans mixed in the same batches. Whatever the order
// in which exports of any build succeed or fail, the ledger acknowledges a run's messages only
// once every span of it has reached the collector (a span id carries the same content in every
// build) and a metric collection taken after it ended was exported; it settles each message
// exactly once; once the collector takes everything, every run is acknowledged; and once no run
// is open, what it remembered of spans is forgotten.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DeliveryLedger } from '../../src/sources/delivery-ledger.js';
import type { Delivery } from '../../src/sources/delivery.js';

/** A parent and its sub-agent in trace `t`, and a run of trace `u` (whose span ids are alike). */
const RUNS = [
  { runId: 'parent', traceId: 't', spanIds: ['a', 'b', 'c', 'd'] },
  { runId: 'child', traceId: 't', spanIds: ['e', 'f', 'g'] },
  { runId: 'other', traceId: 'u', spanIds: ['a', 'b', 'c'] },
] as const;
const TRACES = { t: ['a', 'b', 'c', 'd', 'e', 'f', 'g'], u: ['a', 'b', 'c'] } as const;
const MAX_DELAY = 30_000;

type Step =
  | {
      readonly kind: 'export';
      readonly traceId: 't' | 'u';
      readonly ids: readonly string[];
      readonly ok: boolean;
    }
  | { readonly kind: 'end' | 'redeliver'; readonly run: number }
  | { readonly kind: 'metrics' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constantFrom('t' as const, 'u' as const).chain((traceId) =>
    fc.record({
      kind: fc.constant('export' as const),
      traceId: fc.constant(traceId),
      ids: fc.subarray([...TRACES[traceId]], { minLength: 1 }),
      ok: fc.boolean(),
    }),
  ),
  fc.record({
    kind: fc.constantFrom('end' as const, 'redeliver' as const),
    run: fc.integer({ min: 0, max: RUNS.length - 1 }),
  }),
  fc.constant({ kind: 'metrics' as const }),
);

type RunState = 'open' | 'ended' | 'naked' | 'acked';

/** Plays `steps` against a ledger; throws where an invariant breaks. Resolves with builds made. */
async function play(steps: readonly Step[]) {
  let clock = 0;
  const ledger = new DeliveryLedger(
    { outage: () => undefined, recovered: () => undefined, forgetRun: () => undefined },
    () => clock,
    MAX_DELAY,
  );
  const atCollector = { t: new Set<string>(), u: new Set<string>() };
  const settled = new Map<string, 'ack' | 'nak'>();
  let builds = 0;
  const states: RunState[] = RUNS.map(() => 'open');
  const messages: string[][] = RUNS.map(() => []);
  const deliver = (k: number) => {
    builds += 1;
    const run = RUNS[k]!;
    messages[k] = [`${run.runId}/${builds}/1`, `${run.runId}/${builds}/2`];
    for (const name of messages[k]) {
      const d: Delivery = {
        ack: () => {
          expect(settled.has(name), `${name} settled twice`).toBe(false);
          // Acknowledged: every span of the run is at the collector.
          for (const id of run.spanIds)
            expect(atCollector[run.traceId].has(id), `${name} acknowledged without ${id}`).toBe(
              true,
            );
          settled.set(name, 'ack');
        },
        nak: () => {
          expect(settled.has(name), `${name} settled twice`).toBe(false);
          settled.set(name, 'nak');
        },
      };
      ledger.settle(d, { outcome: 'accepted', dialect: 'behest', runId: run.runId });
    }
  };
  const sync = () => {
    messages.forEach((names, k) => {
      const outcomes = names.map((m) => settled.get(m));
      if (outcomes.every((o) => o === 'ack')) states[k] = 'acked';
      else if (outcomes.every((o) => o === 'nak')) states[k] = 'naked';
      else expect(outcomes.every((o) => o === undefined)).toBe(true);
    });
  };
  const apply = async (s: Step) => {
    clock += 1;
    if (s.kind === 'export') {
      const spans = new Map([[s.traceId, s.ids]]);
      if (s.ok) {
        for (const id of s.ids) atCollector[s.traceId].add(id);
        ledger.spansExported(spans);
      } else ledger.spansFailed(spans, new Error('503'));
    } else if (s.kind === 'end' && states[s.run] === 'open') {
      const run = RUNS[s.run]!;
      ledger.runEnded({
        ...run,
        dialect: 'behest',
        outcome: 'completed',
        iterations: 1,
        synthesized: false,
        spanCount: run.spanIds.length,
      });
      states[s.run] = 'ended';
    } else if (s.kind === 'redeliver' && states[s.run] === 'naked') {
      deliver(s.run);
      states[s.run] = 'open';
    } else if (s.kind === 'metrics') ledger.metricsExported(clock - 1);
    await Promise.resolve(); // a failure met before the run ended settles just after it
    sync();
  };
  RUNS.forEach((_run, k) => deliver(k));
  for (const s of steps) await apply(s);
  // The collector takes everything from now on: every run is acknowledged within a few builds.
  for (let round = 0; round < 5 && states.some((s) => s !== 'acked'); round += 1)
    for (let k = 0; k < RUNS.length; k += 1) {
      await apply({ kind: 'redeliver', run: k });
      await apply({ kind: 'end', run: k });
      for (const traceId of ['t', 'u'] as const)
        await apply({ kind: 'export', traceId, ids: TRACES[traceId], ok: true });
      await apply({ kind: 'metrics' });
    }
  expect(states).toEqual(RUNS.map(() => 'acked'));
  expect(ledger.pending).toBe(0);
  // No run is open: once a failed run's messages would have come back, nothing is remembered.
  clock += 2 * MAX_DELAY + 1;
  ledger.metricsExported(clock);
  expect(ledger.spansRemembered).toBe(0);
  return builds;
}

describe('delivery ledger, runs rebuilt after failed exports', () => {
  it('acknowledges a run only once all its own spans are at the collector, whichever build or run of its trace sent them', async () => {
    let rebuilt = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 60 }), async (steps) => {
        if ((await play(steps)) > RUNS.length) rebuilt += 1;
      }),
      { numRuns: 500 },
    );
    // The schedules did rebuild runs.
    expect(rebuilt).toBeGreaterThan(100);
  });

  it('is not fooled by a failed build’s spans landing late and the rebuild sending them again', async () => {
    // Build 1 ends; c fails; a and b of build 1 land after it was forgotten. Build 2 ends and
    // sends a and b again: two of four spans are at the collector, not four.
    await expect(
      play([
        { kind: 'end', run: 0 },
        { kind: 'export', traceId: 't', ids: ['c'], ok: false },
        { kind: 'export', traceId: 't', ids: ['a', 'b'], ok: true },
        { kind: 'redeliver', run: 0 },
        { kind: 'end', run: 0 },
        { kind: 'export', traceId: 't', ids: ['a', 'b'], ok: true },
        { kind: 'metrics' },
      ]),
    ).resolves.toBeGreaterThan(RUNS.length);
  });

  it('is not fooled by a sub-agent’s spans: each run of a trace awaits its own', async () => {
    // The sub-agent ends first; its parent's spans reach the collector, then the parent ends.
    // Neither is acknowledged for the other's spans, and neither waits for good.
    await expect(
      play([
        { kind: 'export', traceId: 't', ids: ['a', 'b'], ok: true },
        { kind: 'end', run: 1 },
        { kind: 'export', traceId: 't', ids: ['c', 'e'], ok: true },
        { kind: 'metrics' },
        { kind: 'end', run: 0 },
        { kind: 'export', traceId: 't', ids: ['d'], ok: true },
        { kind: 'metrics' },
      ]),
    ).resolves.toBe(RUNS.length);
  });
});
