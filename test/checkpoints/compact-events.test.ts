// A compacted run maps to the same spans and metrics as the run it was compacted from, with and
// without content capture; without capture it carries no content.
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/index.js';
import { compactEvents } from '../../src/checkpoints/compact-events.js';
import { behest, RUN_A, toolRun } from '../helpers/behest-lines.js';
import { createHarness } from '../helpers/harness.js';
import type { Harness } from '../helpers/harness.js';

/** toolRun with 400 more text deltas (some sharing a timestamp) and argument deltas. */
function chattyRun(): string[] {
  const lines = toolRun();
  const deltas = Array.from({ length: 400 }, (_, i) =>
    behest('TextDelta', RUN_A, `00.${String(300 + Math.floor(i / 2)).padStart(3, '0')}`, {
      delta: `w${i} `,
    }),
  );
  const argumentDeltas = ['{"ci', 'ty": "Pa', 'ris"}'].map((delta, i) =>
    behest('ToolCallDelta', RUN_A, `00.8${i + 1}0`, { call_id: 'call_1', delta }),
  );
  return [
    ...lines.slice(0, 3),
    ...deltas,
    ...lines.slice(3, 5),
    ...argumentDeltas,
    ...lines.slice(5),
  ];
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

describe('compactEvents', () => {
  it.each([true, false])(
    'gives the same spans and metrics (content capture %s)',
    async (capture) => {
      const taken: AgentEvent[] = [];
      const whole = createHarness(
        { captureContent: capture },
        { onAccepted: (event) => taken.push(event) },
      );
      whole.feed(chattyRun().join('\n'));
      await whole.sink.shutdown();
      expect(taken).toHaveLength(chattyRun().length);

      const compacted = compactEvents(taken, { capture, maxTextChars: 8192 });
      expect(compacted.length).toBeLessThan(25);
      const rebuilt = createHarness({ captureContent: capture });
      rebuilt.sink.restoreRun(compacted, 'behest');
      await rebuilt.sink.shutdown();
      expect(shape(rebuilt)).toEqual(shape(whole));
      for (const name of [
        'agent.runs',
        'agent.iterations',
        'agent.tool.calls',
        'gen_ai.client.token.usage',
        'gen_ai.execute_tool.duration',
      ]) {
        expect(await whole.sum(name)).toBeGreaterThan(0);
        expect(await rebuilt.sum(name)).toBe(await whole.sum(name));
      }
      if (capture) expect(JSON.stringify(shape(rebuilt))).toContain('w0 w1 w2');
      else {
        const text = JSON.stringify(compacted);
        for (const content of ['w1 ', 'Paris', 'temp_c', 'Pa']) expect(text).not.toContain(content);
      }
    },
  );

  it('puts events in time order and keeps deltas of different calls apart', () => {
    const t = (ms: number): [number, number] => [1, ms * 1_000_000];
    const delta = (ms: number, callId: string, text: string): AgentEvent => ({
      type: 'ToolCallDelta',
      runId: 'r',
      time: t(ms),
      callId,
      delta: text,
    });
    const events = [delta(3, 'a', 'c'), delta(1, 'a', 'a'), delta(2, 'a', 'b'), delta(4, 'b', 'x')];
    expect(
      compactEvents(events, { capture: true, maxTextChars: 100 }).map((e) => [
        e.time[1] / 1_000_000,
        (e as { delta: string }).delta,
      ]),
    ).toEqual([
      [1, 'ab'],
      [3, 'c'],
      [4, 'x'],
    ]);
    expect(
      (compactEvents(events, { capture: true, maxTextChars: 1 })[0] as { delta: string }).delta,
    ).toBe('a');
  });
});
