import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BEHEST_VARIANTS, parseLine } from '../../../src/index.js';
import type { AgentEvent } from '../../../src/index.js';

const examples = readFileSync(
  new URL('../../fixtures/behest/variants.ndjson', import.meta.url),
  'utf8',
)
  .trim()
  .split('\n');

function parseOk(line: string): AgentEvent {
  const { dialect, result } = parseLine(line, 'auto');
  expect(dialect).toBe('behest');
  if (!result.ok) throw new Error(`expected ok, got ${result.message}`);
  expect(result.events).toHaveLength(1);
  return result.events[0]!;
}

function rejection(line: string): string {
  const { result } = parseLine(line, 'behest');
  if (result.ok) throw new Error('expected a rejection');
  return `${result.outcome}/${result.reason}: ${result.message}`;
}

describe('behest dialect', () => {
  it('knows the 17 variants of behest 0.2.2', () => {
    expect(BEHEST_VARIANTS).toHaveLength(17);
  });

  it('parses the documented serde output of every variant', () => {
    const types = new Set(examples.map((line) => parseOk(line).type));
    expect([...types].sort()).toEqual([...BEHEST_VARIANTS].sort());
  });

  it('maps fields to the canonical event', () => {
    expect(parseOk(examples[0]!)).toEqual({
      type: 'RunStarted',
      runId: '0190f3a2-7c4e-4b8a-9d2e-5f6a7b8c9d0e',
      time: [1748779200, 123456789],
      sessionId: '3f2b8c1d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
      provider: 'openai',
      model: 'gpt-4o-mini',
    });
    const byType = (type: string) => examples.map((l) => parseOk(l)).filter((e) => e.type === type);
    expect(byType('ToolCallCompleted')[0]).toMatchObject({
      callId: 'call_abc123',
      toolName: 'get_weather',
      arguments: { city: 'Paris' },
    });
    expect(
      byType('ToolExecutionFinished').map((e) => e.type === 'ToolExecutionFinished' && e.result),
    ).toEqual([
      { ok: true, output: { temp_c: 21 } },
      { ok: false, error: 'timeout' },
    ]);
    expect(byType('RunCompleted').map((e) => e.type === 'RunCompleted' && e.finishReason)).toEqual([
      'stop',
      'pause_turn',
    ]);
    expect(byType('UsageRecorded')[0]).toMatchObject({
      usage: { inputTokens: 412, outputTokens: 37 },
    });
    expect(byType('CompactionCircuitOpened')[0]).toMatchObject({ consecutiveFailures: 3 });
    expect(byType('ModelStarted')[0]).toMatchObject({
      iteration: 1,
      time: [1748779200, 141_000_000],
    });
  });

  it('tolerates extra fields, null optionals and newer cache fields', () => {
    const event = parseOk(
      '{"UsageRecorded":{"run_id":"r1","usage":{"input_tokens":5,"output_tokens":2,"total_tokens":7,"cache_read_input_tokens":null,"cache_creation_input_tokens":3,"reasoning_tokens":1},"timestamp":"2025-06-01T12:00:00Z","extra":true}}',
    );
    expect(event).toMatchObject({
      usage: {
        inputTokens: 5,
        outputTokens: 2,
        cacheReadInputTokens: undefined,
        cacheCreationInputTokens: 3,
      },
    });
    expect(
      parseOk(
        '{"RunStarted":{"run_id":"r1","session_id":null,"provider":"anthropic","model":"claude","timestamp":"2025-06-01T12:00:00Z"}}',
      ),
    ).toMatchObject({ sessionId: undefined });
  });

  it('ignores unknown variants from newer runtimes', () => {
    const { result } = parseLine(
      '{"CacheMetrics":{"run_id":"r1","hits":3,"timestamp":"2025-06-01T12:00:00Z"}}',
      'auto',
    );
    expect(result).toMatchObject({ ok: false, outcome: 'ignored', reason: 'unknown_variant' });
  });

  it('pins rejection messages with their field paths', () => {
    expect(
      rejection('{"RunStarted":{"run_id":"r1","timestamp":"yesterday"}}'),
    ).toMatchInlineSnapshot(
      `"rejected/schema: RunStarted.timestamp: expected an RFC 3339 timestamp, got "yesterday""`,
    );
    expect(
      rejection(
        '{"ModelStarted":{"run_id":"r1","iteration":-1,"timestamp":"2025-06-01T12:00:00Z"}}',
      ),
    ).toMatchInlineSnapshot(
      `"rejected/schema: ModelStarted.iteration: Too small: expected number to be >=0"`,
    );
    expect(
      rejection(
        '{"ToolCallCompleted":{"run_id":"r1","call":{"id":"c1","arguments":{}},"timestamp":"2025-06-01T12:00:00Z"}}',
      ),
    ).toMatchInlineSnapshot(
      `"rejected/schema: ToolCallCompleted.call.name: Invalid input: expected string, received undefined"`,
    );
    expect(
      rejection('{"RunFailed":{"timestamp":"2025-06-01T12:00:00Z","error":"x"}}'),
    ).toMatchInlineSnapshot(
      `"rejected/schema: RunFailed.run_id: Invalid input: expected string, received undefined"`,
    );
    expect(
      rejection(
        '{"ToolExecutionFinished":{"run_id":"r1","call_id":"c","tool_name":"t","result":{"Maybe":{}},"timestamp":"2025-06-01T12:00:00Z"}}',
      ),
    ).toMatchInlineSnapshot(`"rejected/schema: ToolExecutionFinished.result: Invalid input"`);
    expect(rejection('{"RunStarted":{},"RunFailed":{}}')).toMatchInlineSnapshot(
      `"rejected/not_an_object: expected an object with exactly one variant key, such as {"RunStarted":{…}}"`,
    );
    expect(rejection('{"RunStarted":')).toMatch(/^rejected\/invalid_json: not JSON: /);
  });

  it('names the known dialects when auto-detection finds none', () => {
    const { dialect, result } = parseLine('{"kind":"agent_start"}', 'auto');
    expect(dialect).toBe('unknown');
    expect(result).toMatchObject({
      ok: false,
      outcome: 'rejected',
      reason: 'undetected_dialect',
      message: 'no dialect recognises this line (known: behest, oxi, agent-sdk, crabtalk)',
    });
  });

  it('does not let prototype keys through as variants', () => {
    expect(parseLine('{"__proto__":{"run_id":"r1"}}', 'behest').result).toMatchObject({
      ok: false,
    });
    expect(parseLine('{"constructor":{"run_id":"r1"}}', 'behest').result).toMatchObject({
      ok: false,
      outcome: 'rejected',
    });
  });
});
