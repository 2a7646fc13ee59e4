// The context a child span starts in, against the API's own `trace.setSpan` on generated parent
// contexts and generated sets and deletes after it: every key reads the same in both.
import { createContextKey, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import type { Context } from '@opentelemetry/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withSpanParent } from '../../../src/mapping/spans/span-parent-context.js';

const spanOf = (n: number) =>
  trace.wrapSpanContext({
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: (n + 1).toString(16).padStart(16, '0'),
    traceFlags: TraceFlags.SAMPLED,
  });
const OTHER_KEYS = [createContextKey('a'), createContextKey('b'), createContextKey('c')];

type Step = { op: 'set' | 'delete'; key: number; value: number } | { op: 'span'; value: number };
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    op: fc.constantFrom('set' as const, 'delete' as const),
    key: fc.nat(OTHER_KEYS.length - 1),
    value: fc.nat(9),
  }),
  fc.record({ op: fc.constant('span' as const), value: fc.nat(9) }),
);

/** Applies `steps` to `context`; `span` steps set a span the way a child's start would. */
function applied(context: Context, steps: readonly Step[], viaParent: boolean): Context {
  for (const s of steps) {
    if (s.op === 'span')
      context = viaParent
        ? withSpanParent(context, spanOf(s.value))
        : trace.setSpan(context, spanOf(s.value));
    else if (s.op === 'set') context = context.setValue(OTHER_KEYS[s.key]!, s.value);
    else context = context.deleteValue(OTHER_KEYS[s.key]!);
  }
  return context;
}

function reads(context: Context): unknown[] {
  return [trace.getSpan(context), ...OTHER_KEYS.map((key) => context.getValue(key))];
}

describe('withSpanParent', () => {
  it('reads, sets and deletes every key as trace.setSpan does, through chains of children', () => {
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 12 }),
        fc.array(step, { maxLength: 12 }),
        fc.boolean(),
        (before, after, deleteSpan) => {
          const ours = applied(ROOT_CONTEXT, before, true);
          const api = applied(ROOT_CONTEXT, before, false);
          expect(reads(ours)).toEqual(reads(api));
          const oursAfter = applied(ours, after, true);
          const apiAfter = applied(api, after, false);
          expect(reads(oursAfter)).toEqual(reads(apiAfter));
          if (deleteSpan)
            expect(reads(trace.deleteSpan(oursAfter))).toEqual(reads(trace.deleteSpan(apiAfter)));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('leaves its parent as it was', () => {
    const parent = ROOT_CONTEXT.setValue(OTHER_KEYS[0]!, 1);
    const span = spanOf(1);
    const child = withSpanParent(parent, span);
    child.setValue(OTHER_KEYS[0]!, 2);
    child.deleteValue(OTHER_KEYS[0]!);
    expect(parent.getValue(OTHER_KEYS[0]!)).toBe(1);
    expect(trace.getSpan(parent)).toBeUndefined();
    expect(trace.getSpan(child)).toBe(span);
    expect(child.getValue(OTHER_KEYS[0]!)).toBe(1);
  });
});
