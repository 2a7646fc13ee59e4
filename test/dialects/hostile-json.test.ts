// Hostile but well-formed JSON: numbers beyond 2^53, huge arrays, negative counts and
// prototype-pollution keys get a clear per-line answer and change nothing they should not.
import { describe, expect, it } from 'vitest';
import { behest, RUN_A } from '../helpers/behest-lines.js';
import { createHarness } from '../helpers/harness.js';

describe('hostile JSON', () => {
  it('rejects numbers beyond 2^53 and negative counts with their field path', () => {
    const h = createHarness();
    const results = h.feed(
      [
        behest('RunStarted', RUN_A, '00', {}),
        // 2^53 + 1, written as JSON text (a JavaScript literal would already have lost it).
        `{"ModelStarted":{"run_id":"${RUN_A}","iteration":9007199254740993,"timestamp":"2025-06-01T12:00:01Z"}}`,
        '{"UsageRecorded":{"run_id":"' +
          RUN_A +
          '","usage":{"input_tokens":1e400,"output_tokens":18446744073709551616},"timestamp":"2025-06-01T12:00:02Z"}}',
        behest('ContextBuilt', RUN_A, '03', { message_count: -1 }),
      ].join('\n'),
    );
    expect(results.map((r) => [r.outcome, r.reason])).toEqual([
      ['accepted', undefined],
      ['rejected', 'schema'],
      ['rejected', 'schema'],
      ['rejected', 'schema'],
    ]);
    expect(results[1]!.path).toBe('ModelStarted.iteration');
    expect(results[1]!.message).toContain('9007199254740991');
    expect(results[2]!.path).toMatch(/^UsageRecorded\.usage\.(input|output)_tokens$/);
    expect(results[3]!.path).toBe('ContextBuilt.message_count');
  });

  it('takes a 200 000-element argument array without copying it into the trace', () => {
    const h = createHarness();
    const args = `[${Array.from({ length: 200_000 }, () => 0).join(',')}]`;
    const results = h.feed(
      [
        behest('RunStarted', RUN_A, '00', {}),
        behest('ModelStarted', RUN_A, '01', { iteration: 1, model: 'm' }),
        `{"ToolCallCompleted":{"run_id":"${RUN_A}","call":{"id":"c","name":"t","arguments":${args}},"timestamp":"2025-06-01T12:00:02Z"}}`,
        behest('RunCompleted', RUN_A, '03', {}),
      ].join('\n'),
    );
    expect(results.every((r) => r.outcome === 'accepted')).toBe(true);
    const sizes = h
      .spans()
      .flatMap((s) => Object.values(s.attributes).map((v) => String(v).length));
    expect(Math.max(...sizes)).toBeLessThan(200);
  });

  it('ignores __proto__ and constructor keys: nothing is polluted', () => {
    const h = createHarness();
    const results = h.feed(
      [
        behest('RunStarted', RUN_A, '00', {}),
        `{"RunCompleted":{"run_id":"${RUN_A}","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"timestamp":"2025-06-01T12:00:05Z"}}`,
      ].join('\n'),
    );
    expect(results.map((r) => r.outcome)).toEqual(['accepted', 'accepted']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });
});
