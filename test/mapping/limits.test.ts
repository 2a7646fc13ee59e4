import { diag, DiagLogLevel } from '@opentelemetry/api';
import type { DiagLogger } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { behest, RUN_A } from '../helpers/behest-lines.js';
import { createHarness } from '../helpers/harness.js';

const warnings: string[] = [];
const logger: DiagLogger = {
  error: () => undefined,
  warn: (...args: unknown[]) => warnings.push(args.map(String).join(' ')),
  info: () => undefined,
  debug: () => undefined,
  verbose: () => undefined,
};

describe('per-run limits', () => {
  afterEach(() => {
    diag.disable();
    warnings.length = 0;
  });

  it('rejects iterations beyond maxIterationsPerRun, counts each and says so once', async () => {
    diag.setLogger(logger, DiagLogLevel.WARN);
    const h = createHarness({ maxIterationsPerRun: 3 });
    const lines = [
      behest('RunStarted', RUN_A, '00', {}),
      ...Array.from({ length: 6 }, (_, i) =>
        behest('ModelStarted', RUN_A, `0${i + 1}`, { iteration: i + 1, model: 'm' }),
      ),
      behest('RunCompleted', RUN_A, '09', {}),
    ];
    const results = h.feed(lines.join('\n'));
    expect(results.map((r) => r.reason ?? r.outcome)).toEqual([
      'accepted',
      'accepted',
      'accepted',
      'accepted',
      'limit_iterations',
      'limit_iterations',
      'limit_iterations',
      'accepted',
    ]);
    expect(h.spans().filter((s) => s.name === 'agent.iteration')).toHaveLength(3);
    expect(await h.sum('agent_bridge.events', { 'agent_bridge.reason': 'limit_iterations' })).toBe(
      3,
    );
    expect(warnings.filter((w) => w.includes('iterations'))).toHaveLength(1);
  });

  it('rejects tool executions beyond maxToolsPerRun, started or only finished', () => {
    const h = createHarness({ maxToolsPerRun: 2 });
    const results = h.feed(
      [
        behest('RunStarted', RUN_A, '00', {}),
        behest('ToolExecutionStarted', RUN_A, '01', { call_id: 'a', tool_name: 't' }),
        behest('ToolExecutionFinished', RUN_A, '02', {
          call_id: 'b',
          tool_name: 't',
          result: { Success: { output: 1 } },
        }),
        behest('ToolExecutionStarted', RUN_A, '03', { call_id: 'c', tool_name: 't' }),
        behest('ToolExecutionFinished', RUN_A, '04', {
          call_id: 'd',
          tool_name: 't',
          result: { Success: { output: 1 } },
        }),
        behest('ToolExecutionFinished', RUN_A, '05', {
          call_id: 'a',
          tool_name: 't',
          result: { Success: { output: 1 } },
        }),
        behest('RunCompleted', RUN_A, '06', {}),
      ].join('\n'),
    );
    expect(results.map((r) => r.reason ?? r.outcome)).toEqual([
      'accepted',
      'accepted',
      'accepted',
      'limit_tools',
      'limit_tools',
      'accepted',
      'accepted',
    ]);
    expect(h.spans().filter((s) => s.name === 'execute_tool t')).toHaveLength(2);
  });

  it('remembers only the latest event keys of a run, so a long run does not grow without bound', () => {
    const h = createHarness();
    const calls = Array.from({ length: 1100 }, (_, i) =>
      behest('ToolCallStarted', RUN_A, `00.${String(i).padStart(4, '0')}`, {
        call_id: `c${i}`,
        tool_name: 't',
      }),
    );
    h.feed([behest('RunStarted', RUN_A, '00', {}), ...calls].join('\n'));
    // A recent event is still recognised as a duplicate; the oldest one has been forgotten.
    expect(h.sink.handleJson(calls.at(-1)!)).toMatchObject({ outcome: 'duplicate' });
    expect(h.sink.handleJson(calls[0]!)).toMatchObject({ outcome: 'accepted' });
  });

  it('recognises every replayed delta without remembering deltas one by one', () => {
    const h = createHarness();
    const deltas = Array.from({ length: 5000 }, (_, i) =>
      behest('TextDelta', RUN_A, `00.${String(i).padStart(4, '0')}`, { delta: 'x' }),
    );
    h.feed([behest('RunStarted', RUN_A, '00', {}), ...deltas].join('\n'));
    expect(h.sink.handleJson(deltas.at(-1)!)).toMatchObject({ outcome: 'duplicate' });
    expect(h.sink.handleJson(deltas[0]!)).toMatchObject({ outcome: 'duplicate' });
    // Two different deltas at the same instant are both kept; the same one twice is not.
    const sameTime = (delta: string) => behest('TextDelta', RUN_A, '00.6000', { delta });
    expect(h.sink.handleJson(sameTime('a'))).toMatchObject({ outcome: 'accepted' });
    expect(h.sink.handleJson(sameTime('b'))).toMatchObject({ outcome: 'accepted' });
    expect(h.sink.handleJson(sameTime('a'))).toMatchObject({ outcome: 'duplicate' });
  });
});
