// `sink.handle()` never throws into the host runtime, whatever it is given, and opens no span for
// an event whose envelope is unsound: it is rejected, counted, with the field path.
import { expect, it } from 'vitest';
import type { AgentEvent } from '../../src/index.js';
import { createHarness } from '../helpers/harness.js';

const bad: [unknown, string, string][] = [
  [null, '', 'expected an event object, got null'],
  ['RunStarted', '', 'expected an event object, got string'],
  [{}, 'type', 'type: unknown event type undefined'],
  [
    { type: 'RunStrated', runId: 'r', time: [1, 0] },
    'type',
    'type: unknown event type "RunStrated"',
  ],
  [{ type: 'RunStarted', runId: '', time: [1, 0] }, 'runId', 'runId: expected a non-empty string'],
  [{ type: 'RunStarted', runId: 'r', time: '2025-01-01' }, 'time', 'time: expected an HrTime'],
  [{ type: 'RunStarted', runId: 'r', time: [-5, 0] }, 'time', 'time: expected an HrTime'],
  [{ type: 'RunStarted', runId: 'r', time: [1, 2e9] }, 'time', 'time: expected an HrTime'],
];

it.each(bad)('rejects %j with its field path, opening nothing', (event, path, message) => {
  const h = createHarness();
  const result = h.sink.handle(event as AgentEvent);
  expect(result).toMatchObject({ outcome: 'rejected', reason: 'schema', path });
  expect(result.message).toContain(message);
  h.sink.endOpenRuns();
  expect(h.spans()).toEqual([]);
  expect(h.sink.stats().events.rejected).toBe(1);
});

it('maps a sound event', () => {
  const h = createHarness();
  const time: [number, number] = [1_750_000_000, 0];
  expect(h.sink.handle({ type: 'RunStarted', runId: 'r-1', time }).outcome).toBe('accepted');
  expect(
    h.sink.handle({ type: 'RunCompleted', runId: 'r-1', time: [time[0] + 1, 0] }).outcome,
  ).toBe('accepted');
  expect(h.spans().map((s) => s.name)).toEqual(['invoke_agent']);
});
