// A stored checkpoint is read back as it was written, and one that cannot be used is refused with
// the field at fault — every branch of decoding (the restore path says the message and skips it).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCheckpoint, encodeCheckpoint } from '../../src/checkpoints/run-checkpoint.js';
import type { RunCheckpoint } from '../../src/checkpoints/run-checkpoint.js';
import type { AgentEvent } from '../../src/events/agent-event.js';

const RUN = '0190f3a2-7c4e-4b8a-9d2e-5f6a7b8c9d0e';
const event = (seconds: number): AgentEvent => ({
  type: 'TextDelta',
  runId: RUN,
  time: [1_750_000_000 + seconds, 0],
  delta: 'x',
});
const good: RunCheckpoint = {
  runId: RUN,
  dialect: 'behest',
  finished: false,
  events: [{ type: 'RunStarted', runId: RUN, time: [1_750_000_000, 0] }, event(1)],
  metricWrites: 3,
};
const stored = (patch: Record<string, unknown>) =>
  JSON.stringify({ ...(JSON.parse(encodeCheckpoint(good)) as object), ...patch });

describe('run checkpoints as stored', () => {
  it('reads back what was written, whatever the events', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 1e6 }), { maxLength: 50 }),
        fc.boolean(),
        fc.nat({ max: 1e6 }),
        (times, finished, metricWrites) => {
          const checkpoint: RunCheckpoint = {
            runId: RUN,
            dialect: 'oxi',
            finished,
            events: times.map(event),
            metricWrites,
          };
          expect(decodeCheckpoint(encodeCheckpoint(checkpoint))).toEqual(checkpoint);
        },
      ),
    );
  });

  it.each([
    ['not JSON', '{"v":', /^not JSON: /],
    ['not an object', '42', /^expected an object$/],
    ['another version', stored({ v: 99 }), /^v: expected \d+, got 99$/],
    ['no run id', stored({ runId: '' }), /^runId: expected a string$/],
    ['an unknown dialect', stored({ dialect: 'nope' }), /^dialect: unknown "nope"$/],
    ['finished not a boolean', stored({ finished: 'yes' }), /^finished: expected a boolean$/],
    ['events not an array', stored({ events: {} }), /^events: expected an array$/],
    [
      'an event that is not one',
      stored({ events: [{ type: 'Nope', runId: RUN, time: [1, 0] }] }),
      /^events\[0\]\.type: unknown event type "Nope"$/,
    ],
    [
      'an event of another run',
      stored({ events: [{ type: 'RunCancelled', runId: 'other', time: [1, 0] }] }),
      /^events\[0\]\.runId: not the checkpoint's run$/,
    ],
    [
      'a bad time',
      stored({ events: [{ type: 'RunCancelled', runId: RUN, time: [1, 2e9] }] }),
      /^events\[0\]\.time: /,
    ],
    [
      'negative metric writes',
      stored({ metricWrites: -1 }),
      /^metricWrites: expected a whole number/,
    ],
    [
      'fractional metric writes',
      stored({ metricWrites: 1.5 }),
      /^metricWrites: expected a whole number/,
    ],
  ])('refuses %s, naming the field', (_name, text, message) => {
    expect(() => decodeCheckpoint(text)).toThrow(message);
  });

  it('reads a checkpoint written before metric writes were kept as none made', () => {
    const { metricWrites: _omit, ...old } = JSON.parse(encodeCheckpoint(good)) as Record<
      string,
      unknown
    >;
    expect(decodeCheckpoint(JSON.stringify(old)).metricWrites).toBe(0);
  });
});
