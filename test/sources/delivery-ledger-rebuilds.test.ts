// A run whose export failed is forgotten and rebuilt from its redelivered messages, while spans of
// the failed build may still be in flight and land after it. Whatever the order in which exports
// of any build succeed or fail, the ledger acknowledges a run's messages only once every span of
// it has reached the collector (a span id carries the same content in every build) and a metric
// collection taken after it ended was exported; it settles each message exactly once; and once
// the collector takes everything, the run is acknowledged.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DeliveryLedger } from '../../src/sources/delivery-ledger.js';
import type { Delivery } from '../../src/sources/delivery.js';

const SPANS = ['a', 'b', 'c', 'd'];
const TRACE = 't';
const RUN = { runId: 'r', traceId: TRACE, dialect: 'behest', outcome: 'completed' } as const;

type Step =
  | { readonly kind: 'export'; readonly ids: readonly string[]; readonly ok: boolean }
  | { readonly kind: 'end' }
  | { readonly kind: 'redeliver' }
  | { readonly kind: 'metrics' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('export' as const),
    ids: fc.subarray(SPANS, { minLength: 1 }),
    ok: fc.boolean(),
  }),
  fc.constant({ kind: 'end' as const }),
  fc.constant({ kind: 'redeliver' as const }),
  fc.constant({ kind: 'metrics' as const }),
);

/** Plays `steps` against a ledger; throws where an invariant breaks. */
async function play(steps: readonly Step[]) {
  let clock = 0;
  const ledger = new DeliveryLedger(
    { outage: () => undefined, recovered: () => undefined, forgetRun: () => undefined },
    () => clock,
  );
  const atCollector = new Set<string>();
  const settled = new Map<string, 'ack' | 'nak'>();
  let build = 0;
  const run = { state: 'open' as 'open' | 'ended' | 'naked' | 'acked' };
  let messages: string[] = [];
  const deliver = () => {
    build += 1;
    messages = [`b${build}m1`, `b${build}m2`];
    for (const name of messages) {
      const d: Delivery = {
        ack: () => {
          expect(settled.has(name), `${name} settled twice`).toBe(false);
          // Acknowledged: every span of the run is at the collector.
          expect([...atCollector].sort()).toEqual(SPANS);
          settled.set(name, 'ack');
        },
        nak: () => {
          expect(settled.has(name), `${name} settled twice`).toBe(false);
          settled.set(name, 'nak');
        },
      };
      ledger.settle(d, { outcome: 'accepted', dialect: 'behest', runId: RUN.runId });
    }
  };
  const sync = () => {
    const outcomes = messages.map((m) => settled.get(m));
    if (outcomes.every((o) => o === 'ack')) run.state = 'acked';
    else if (outcomes.every((o) => o === 'nak')) run.state = 'naked';
    else expect(outcomes.every((o) => o === undefined)).toBe(true);
  };
  const apply = async (s: Step) => {
    clock += 1;
    if (s.kind === 'export') {
      if (s.ok) {
        for (const id of s.ids) atCollector.add(id);
        ledger.spansExported(new Map([[TRACE, s.ids.length]]), new Map([[TRACE, s.ids]]));
      } else ledger.spansFailed(new Set([TRACE]), new Error('503'));
    } else if (s.kind === 'end' && run.state === 'open') {
      ledger.runEnded({ ...RUN, iterations: 1, synthesized: false, spanCount: SPANS.length });
      run.state = 'ended';
    } else if (s.kind === 'redeliver' && run.state === 'naked') {
      deliver();
      run.state = 'open';
    } else if (s.kind === 'metrics') ledger.metricsExported(clock - 1);
    await Promise.resolve(); // a failure met before the run ended settles just after it
    sync();
  };
  deliver();
  for (const s of steps) await apply(s);
  // The collector takes everything from now on: the run is acknowledged within a few builds.
  for (let round = 0; round < 5 && run.state !== 'acked'; round += 1)
    for (const kind of ['redeliver', 'end', 'export', 'metrics'] as const)
      await apply(kind === 'export' ? { kind, ids: SPANS, ok: true } : { kind });
  expect(run.state).toBe('acked');
  return build;
}

describe('delivery ledger, runs rebuilt after failed exports', () => {
  it('acknowledges a run only once all its spans are at the collector, whichever build sent them', async () => {
    let rebuilt = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        if ((await play(steps)) > 1) rebuilt += 1;
      }),
      { numRuns: 500 },
    );
    // The schedules did rebuild runs (most of them more than once).
    expect(rebuilt).toBeGreaterThan(100);
  });

  it('is not fooled by a failed build’s spans landing late and the rebuild sending them again', async () => {
    // Build 1 ends; c fails; a and b of build 1 land after it was forgotten. Build 2 ends and
    // sends a and b again: two of four spans are at the collector, not four.
    await expect(
      play([
        { kind: 'end' },
        { kind: 'export', ids: ['c'], ok: false },
        { kind: 'export', ids: ['a', 'b'], ok: true },
        { kind: 'redeliver' },
        { kind: 'end' },
        { kind: 'export', ids: ['a', 'b'], ok: true },
        { kind: 'metrics' },
      ]),
    ).resolves.toBeGreaterThan(1);
  });
});
