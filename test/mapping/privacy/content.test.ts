import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { behest, RUN_A, toolRun } from '../../helpers/behest-lines.js';
import { createHarness, spanByName } from '../../helpers/harness.js';

const CONTENT_KEYS = [
  'gen_ai.tool.call.arguments',
  'gen_ai.tool.call.result',
  'gen_ai.output.messages',
];

function secretRun(): string {
  return [
    behest('RunStarted', RUN_A, '00', {}),
    behest('ModelStarted', RUN_A, '00.1', { iteration: 1, model: 'm' }),
    behest('TextDelta', RUN_A, '00.2', { delta: 'Using key sk-proj-AbCdEf0123456789AbCdEf0123 ' }),
    behest('TextDelta', RUN_A, '00.3', { delta: 'to call the API.' }),
    behest('ToolCallCompleted', RUN_A, '00.4', {
      call: {
        id: 'c1',
        name: 'http',
        arguments: { url: 'https://u:pw12345@x.test', body: 'a'.repeat(200) },
      },
    }),
    behest('AssistantMessageCommitted', RUN_A, '00.5', {}),
    behest('ToolExecutionStarted', RUN_A, '00.6', { call_id: 'c1', tool_name: 'http' }),
    behest('ToolExecutionFinished', RUN_A, '00.7', {
      call_id: 'c1',
      tool_name: 'http',
      result: { Success: { output: { token: 'tok=abcdef' } } },
    }),
    behest('RunCompleted', RUN_A, '01', {}),
  ].join('\n');
}

describe('content capture', () => {
  it('is off by default: no prompt, delta, argument or result reaches a span', () => {
    const h = createHarness();
    h.feed(secretRun());
    h.feed(toolRun('0190f3a2-7c4e-4b8a-9d2e-5f6a7b8c9d11').join('\n'));
    const serialized = JSON.stringify(
      h.spans().map((s) => [s.attributes, s.events.map((e) => e.attributes)]),
    );
    for (const key of CONTENT_KEYS) expect(serialized).not.toContain(key);
    for (const text of [
      'Using key',
      'to call the API',
      'Let me check',
      'Paris',
      'temp_c',
      'https://u',
    ])
      expect(serialized).not.toContain(text);
  });

  it('captures output, arguments and results when opted in, scrubbed and truncated', () => {
    const h = createHarness({ captureContent: true, maxContentBytes: 64 });
    h.feed(secretRun());
    const chat = spanByName(h.spans(), 'chat m');
    const messages = JSON.parse(String(chat.attributes['gen_ai.output.messages'])) as {
      role: string;
      parts: { type: string; content: string }[];
    }[];
    expect(messages).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'text', content: 'Using key [REDACTED] to call the API.' }],
      },
    ]);
    const tool = spanByName(h.spans(), 'execute_tool http');
    const args = String(tool.attributes['gen_ai.tool.call.arguments']);
    expect(args).toMatch(/^\{"url":"https:\/\/u:\[REDACTED\]@x\.test","body":"a+…\[truncated\]$/);
    expect(Buffer.byteLength(args)).toBeLessThanOrEqual(64);
    expect(tool.attributes['gen_ai.tool.call.result']).toBe('{"token":"[REDACTED]"}'); // a JSON key named token is a secret too
  });

  it('follows OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT, and the option wins over it', () => {
    const on = createHarness({
      env: { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' },
    });
    on.feed(secretRun());
    expect(spanByName(on.spans(), 'chat m').attributes['gen_ai.output.messages']).toBeDefined();
    const off = createHarness({
      captureContent: false,
      env: { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' },
    });
    off.feed(secretRun());
    expect(spanByName(off.spans(), 'chat m').attributes['gen_ai.output.messages']).toBeUndefined();
  });
});

describe('content capture off by default, for every dialect', () => {
  const read = (path: string) =>
    readFileSync(new URL(`../../fixtures/${path}`, import.meta.url), 'utf8')
      .trim()
      .split('\n');
  it.each([
    ['behest/tools-success-failure.ndjson', ['Checking both', '21 °C', 'Paris', 'temp_c']],
    [
      'oxi/agent-loop.ndjson',
      ["I'll check", 'The user wants', 'tests/a.rs', 'cargo build', 'fn a()'],
    ],
    ['oxi/legacy.ndjson', ["I'll ", 'list them', 'src/', 'main.rs', '/etc/shadow']],
    [
      'agent-sdk/run.ndjson',
      ['Let me check your balance', 'R$ 120,00', 'cents', 'amount_cents', 'notes.txt'],
    ],
    [
      'crabtalk/run.ndjson',
      ['Let me look', 'There are two files', 'secret.env', 'main.rs', '"command"'],
    ],
  ])('%s: no prompt, delta, tool argument or tool output reaches a span', (path, texts) => {
    const h = createHarness();
    const stream = h.sink.openStream(path);
    for (const line of read(path)) stream.handleJson(line);
    h.sink.endOpenRuns();
    expect(h.spans().length).toBeGreaterThan(0);
    const exported = JSON.stringify(
      h
        .spans()
        .map((s) => [s.name, s.attributes, s.status, s.events.map((e) => [e.name, e.attributes])]),
    );
    for (const key of CONTENT_KEYS) expect(exported).not.toContain(key);
    for (const text of texts) expect(exported).not.toContain(text);
  });
});
