// The field checks of behest payloads take the accepted path without the schema; they must never
// change an answer: for random payloads of every variant (good, missing, null, wrong-typed,
// negative, fractional and unsafe numbers, empty ids, malformed timestamps, nested objects of
// tool calls, results, usage and finish reasons, extra keys) the answer with them equals the
// schema's own, event for event and key for key, rejection for rejection (fine payloads with one
// or two fields changed are where a lax check would show).
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { BEHEST_VARIANTS, parseBehestPayload } from '../../../src/dialects/behest/behest.js';
import * as schemas from '../../../src/dialects/behest/behest-schemas.js';

const FIELDS = [
  'run_id',
  'timestamp',
  'session_id',
  'provider',
  'model',
  'message_count',
  'iteration',
  'delta',
  'call_id',
  'tool_name',
  'message_id',
  'error',
  'description',
  'consecutive_failures',
  'agent_name',
  'parent_run_id',
  'parent_tool_call_id',
  'root_run_id',
  'call',
  'result',
  'duration_ms',
  'usage',
  'finish_reason',
  'iterations',
];
const value = fc.oneof(
  fc.constantFrom(
    '2025-06-01T12:00:00.123456789Z',
    '2025-06-01T12:00:00Z',
    '2025-06-01T14:00:00+02:00',
    '2025-13-01T12:00:00Z',
    'yesterday',
    '',
    'run-1',
    'call_1',
    'é',
  ),
  fc.string({ maxLength: 12 }),
  fc.constantFrom(0, 1, 7, -0, -1, 1.5, 2 ** 53, 2 ** 53 + 2, Number.MAX_VALUE),
  fc.integer(),
  fc.constantFrom(null, true, false),
  fc.constant([]),
  fc.constant({}),
);
/** The nested values of the variants that have them, good and nearly good. */
const nested = fc.oneof(
  fc.record(
    { id: fc.oneof(fc.constantFrom('call_1', ''), value), name: value, arguments: value },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      Success: fc.oneof(fc.record({ output: value }, { requiredKeys: [] }), value),
      Failure: fc.oneof(fc.record({ error: value }, { requiredKeys: [] }), value),
    },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      input_tokens: value,
      output_tokens: value,
      total_tokens: value,
      cache_read_input_tokens: value,
      cache_creation_input_tokens: value,
    },
    { requiredKeys: [] },
  ),
  fc.record({ unknown: value }, { requiredKeys: [] }),
);
const anyValue = fc.oneof(value, nested);
/** A payload: each known field absent or some value, plus maybe a field of a newer version. */
const payload = fc
  .tuple(
    fc.array(fc.tuple(fc.constantFrom(...FIELDS), anyValue), { maxLength: 10 }),
    fc.option(fc.tuple(fc.string({ maxLength: 8 }), value), { nil: undefined }),
  )
  .map(([fields, extra]) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of fields) out[k] = v;
    if (extra !== undefined) out[extra[0]] = extra[1];
    return out;
  });
/** Payloads that are fine for every variant, so that the field checks are taken, not skipped. */
const good = fc.record({
  run_id: fc.constantFrom('run-1', '5b0c1a2e-1111-4a6b-8c7d-000000000001'),
  timestamp: fc.constantFrom('2025-06-01T12:00:00.123456Z', '2025-06-01T12:00:00+01:00'),
  session_id: fc.constantFrom('s-1', null),
  provider: fc.constantFrom('openai', null),
  model: fc.constant('gpt-4o-mini'),
  message_count: fc.nat(50),
  iteration: fc.nat(9),
  delta: fc.string({ maxLength: 10 }),
  call_id: fc.constantFrom('call_1', 'c'),
  tool_name: fc.constantFrom('search', ''),
  message_id: fc.constantFrom('m-1', null),
  error: fc.string({ maxLength: 10 }),
  description: fc.string({ maxLength: 10 }),
  consecutive_failures: fc.nat(5),
  agent_name: fc.constantFrom('planner', null, undefined),
  parent_run_id: fc.constantFrom('run-0', null, undefined),
  parent_tool_call_id: fc.constantFrom('call_0', null, undefined),
  root_run_id: fc.constantFrom('run-top', null, undefined),
  call: fc.record({
    id: fc.constantFrom('call_1', 'c'),
    name: fc.constantFrom('search', ''),
    arguments: fc.constantFrom({ q: 'x' }, '{"q":"x"}', null, undefined),
  }),
  result: fc.oneof(
    fc.record({ Success: fc.record({ output: fc.constantFrom('ok', 3, null, undefined) }) }),
    fc.record({ Failure: fc.record({ error: fc.string({ maxLength: 6 }) }) }),
  ),
  duration_ms: fc.constantFrom(12, null, undefined),
  usage: fc.record(
    {
      input_tokens: fc.oneof(fc.nat(900), fc.constant(null)),
      output_tokens: fc.nat(90),
      total_tokens: fc.nat(990),
      cache_read_input_tokens: fc.oneof(fc.nat(90), fc.constant(null)),
      cache_creation_input_tokens: fc.nat(9),
    },
    { requiredKeys: [] },
  ),
  finish_reason: fc.oneof(
    fc.constantFrom('stop', 'length', null, undefined),
    fc.record({ unknown: fc.constantFrom('content_filter') }),
  ),
  iterations: fc.constantFrom(3, null, undefined),
});

/** A fine payload with one or two fields changed or removed: where a check could be too lax. */
const nearlyGood = fc
  .tuple(
    good,
    fc.array(fc.tuple(fc.constantFrom(...FIELDS), fc.option(anyValue, { nil: undefined })), {
      minLength: 1,
      maxLength: 2,
    }),
  )
  .map(([body, changes]) => {
    const out: Record<string, unknown> = { ...body };
    for (const [k, v] of changes) {
      if (v === undefined) delete out[k];
      else out[k] = v;
    }
    return out;
  });

describe('behest field checks', () => {
  it('answers as the schema does for any payload of any variant', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...BEHEST_VARIANTS),
        fc.oneof(payload, good, nearlyGood, nearlyGood, value),
        (name, body) => {
          expect(parseBehestPayload(name, body)).toStrictEqual(
            parseBehestPayload(name, body, true),
          );
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it('accepts every good payload of every variant without the schema, with the same events', () => {
    // Each variant's schema object, watched: the accepted path must not ask any of them.
    const watched = Object.values(schemas as Record<string, unknown>)
      .filter((s): s is z.ZodType => s instanceof z.ZodType)
      .map((s) => vi.spyOn(s, 'safeParse'));
    expect(watched.length).toBeGreaterThanOrEqual(14);
    try {
      fc.assert(
        fc.property(fc.constantFrom(...BEHEST_VARIANTS), good, (name, body) => {
          for (const spy of watched) spy.mockClear();
          const checked = parseBehestPayload(name, body);
          // Every variant's good payload passes its checks: no schema is asked.
          expect(checked.ok).toBe(true);
          for (const spy of watched) expect(spy).not.toHaveBeenCalled();
          const bySchema = parseBehestPayload(name, body, true);
          expect(watched.some((spy) => spy.mock.calls.length > 0)).toBe(true);
          expect(checked).toStrictEqual(bySchema);
        }),
        { numRuns: 3000 },
      );
    } finally {
      for (const spy of watched) spy.mockRestore();
    }
  });
});
