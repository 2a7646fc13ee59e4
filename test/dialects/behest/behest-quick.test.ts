// The quick check of behest payloads skips the schema for payloads that are fine; it must never
// change an answer: for random payloads of every variant (good, missing, null, wrong-typed,
// negative, fractional and unsafe numbers, empty ids, malformed timestamps, extra keys) the
// answer with it equals the schema's own, event for event, rejection for rejection (fine payloads
// with one or two fields changed are where a lax check would show).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BEHEST_VARIANTS, parseBehestPayload } from '../../../src/dialects/behest/behest.js';

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
/** A payload: each known field absent or some value, plus maybe a field of a newer version. */
const payload = fc
  .tuple(
    fc.array(fc.tuple(fc.constantFrom(...FIELDS), value), { maxLength: 10 }),
    fc.option(fc.tuple(fc.string({ maxLength: 8 }), value), { nil: undefined }),
  )
  .map(([fields, extra]) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of fields) out[k] = v;
    if (extra !== undefined) out[extra[0]] = extra[1];
    return out;
  });
/** Payloads that are fine for most variants, so that the quick check is taken, not skipped. */
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
});

/** A fine payload with one or two fields changed or removed: where a check could be too lax. */
const nearlyGood = fc
  .tuple(
    good,
    fc.array(fc.tuple(fc.constantFrom(...FIELDS), fc.option(value, { nil: undefined })), {
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

describe('behest quick check', () => {
  it('answers as the schema does for any payload of any variant', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...BEHEST_VARIANTS),
        fc.oneof(payload, good, nearlyGood, nearlyGood, value),
        (name, body) => {
          expect(parseBehestPayload(name, body)).toEqual(parseBehestPayload(name, body, true));
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it('takes the quick path for good payloads and gives the same events', () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.constantFrom(...BEHEST_VARIANTS), good, (name, body) => {
        const quick = parseBehestPayload(name, body);
        expect(quick).toEqual(parseBehestPayload(name, body, true));
        if (quick.ok) accepted += 1;
      }),
      { numRuns: 2000 },
    );
    // Most variants are plain fields and accept these; the others fall back to the schema.
    expect(accepted).toBeGreaterThan(1000);
  });
});
