// A fingerprint decides what is a duplicate: two events of one run with equal fingerprints are one
// event delivered twice, and the second is dropped. So every field that tells two same-time events
// apart must change it, and an identical copy must not. Events, fields and values generated.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/events/agent-event.js';
import { eventFingerprint } from '../../../src/mapping/order/event-fingerprint.js';

type Kind = 'int' | 'text' | 'optInt' | 'optText';
/** Each variant and the fields that tell two of its events at one time apart. */
const VARIANTS: Record<string, Record<string, Kind>> = {
  RunStarted: {},
  RunCompleted: {},
  RunCancelled: {},
  RunFailed: { error: 'text' },
  ModelStarted: { iteration: 'int' },
  TextDelta: { delta: 'text' },
  ToolCallStarted: { callId: 'text' },
  ToolCallCompleted: { callId: 'text' },
  ToolExecutionStarted: { callId: 'text' },
  ToolExecutionFinished: { callId: 'text' },
  ToolCallDelta: { callId: 'text', delta: 'text' },
  AssistantMessageCommitted: { messageId: 'optText', iteration: 'optInt' },
  ToolMessageCommitted: { messageId: 'optText' },
  UsageRecorded: {
    iteration: 'optInt',
    'usage.inputTokens': 'optInt',
    'usage.outputTokens': 'optInt',
  },
  Annotation: { target: 'text', callId: 'optText', event: 'optText', attributes: 'text' },
  ContextBuilt: { messageCount: 'int' },
  DoomLoopDetected: { description: 'text' },
  CompactionCircuitOpened: { consecutiveFailures: 'int' },
};

// Small and huge integers (past 2^32, past 2^53) and fractions: each must count whole.
const integer = fc.oneof(
  fc.integer({ min: 0, max: 1000 }),
  fc.maxSafeNat(),
  fc.double({ min: 2 ** 53, max: 2 ** 60, noNaN: true }),
  fc.double({ min: 0, max: 1e6, noNaN: true }),
);
const value = (kind: Kind): fc.Arbitrary<unknown> => {
  switch (kind) {
    case 'int':
      return integer;
    case 'text':
      return fc.string({ maxLength: 12 });
    case 'optInt':
      return fc.option(integer, { nil: undefined });
    case 'optText':
      return fc.option(fc.string({ maxLength: 12 }), { nil: undefined });
  }
};

function build(type: string, time: [number, number], fields: Record<string, unknown>): AgentEvent {
  const event: Record<string, unknown> = { type, runId: 'run-1', time, usage: {} };
  for (const [path, v] of Object.entries(fields)) {
    if (path === 'attributes') event.attributes = { note: v };
    else if (path.startsWith('usage.')) (event.usage as Record<string, unknown>)[path.slice(6)] = v;
    else event[path] = v;
  }
  return event as unknown as AgentEvent;
}

const time = fc.tuple(
  fc.integer({ min: 0, max: 2 ** 40 }),
  fc.integer({ min: 0, max: 999_999_999 }),
);
const variant = fc.constantFrom(...Object.keys(VARIANTS)).chain((type) =>
  fc.record({
    type: fc.constant(type),
    time,
    fields: fc.record(
      Object.fromEntries(Object.entries(VARIANTS[type]!).map(([k, kind]) => [k, value(kind)])),
    ),
  }),
);

describe('event fingerprints', () => {
  it('are 53-bit whole numbers, equal for an identical copy', () => {
    fc.assert(
      fc.property(variant, ({ type, time, fields }) => {
        const fingerprint = eventFingerprint(build(type, time, fields));
        expect(Number.isSafeInteger(fingerprint) && fingerprint >= 0).toBe(true);
        expect(eventFingerprint(build(type, [...time], { ...fields }))).toBe(fingerprint);
      }),
      { numRuns: 2000 },
    );
  });

  it('differ when any field that tells same-time events apart differs, or the type or the time', () => {
    fc.assert(
      fc.property(
        variant,
        fc.nat(),
        variant,
        time,
        fc.context(),
        (event, pick, other, otherTime, context) => {
          const base = eventFingerprint(build(event.type, event.time, event.fields));
          const paths = Object.keys(event.fields);
          if (paths.length > 0) {
            const path = paths[pick % paths.length]!;
            const kind = VARIANTS[event.type]![path]!;
            const changed = fc.sample(
              value(kind).filter((v) => !Object.is(v, event.fields[path])),
              { numRuns: 1, seed: pick },
            )[0];
            // A fraction and a whole number print alike only when equal; -0 and 0 are one number.
            if (!(changed === 0 && Object.is(event.fields[path], -0))) {
              context.log(
                `${event.type}.${path}: ${String(event.fields[path])} → ${String(changed)}`,
              );
              expect(
                eventFingerprint(
                  build(event.type, event.time, { ...event.fields, [path]: changed }),
                ),
              ).not.toBe(base);
            }
          }
          if (other.type !== event.type)
            expect(eventFingerprint(build(other.type, event.time, other.fields))).not.toBe(base);
          if (otherTime[0] !== event.time[0] || otherTime[1] !== event.time[1])
            expect(eventFingerprint(build(event.type, otherTime, event.fields))).not.toBe(base);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('tell apart two text fields that join alike ("ab" + "c", "a" + "bc")', () => {
    const at: [number, number] = [1, 2];
    const a = eventFingerprint(build('ToolCallDelta', at, { callId: 'ab', delta: 'c' }));
    const b = eventFingerprint(build('ToolCallDelta', at, { callId: 'a', delta: 'bc' }));
    expect(a).not.toBe(b);
  });

  it('tell apart numbers that differ only above 2^32', () => {
    const at: [number, number] = [1, 2];
    const fingerprints = [7, 7 + 2 ** 32, 7 + 2 ** 40].map((n) =>
      eventFingerprint(build('ContextBuilt', at, { messageCount: n })),
    );
    expect(new Set(fingerprints).size).toBe(3);
  });
});
