// Builds behest 0.2.2 JSON lines for tests, with explicit timestamps.
export const RUN_A = '0190f3a2-7c4e-4b8a-9d2e-5f6a7b8c9d0e';
export const RUN_B = '0190f3a2-7c4e-4b8a-9d2e-5f6a7b8c9d0f';
export const SESSION = '3f2b8c1d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

/** `{"Variant":{"run_id":…,…payload,"timestamp":"2025-06-01T12:00:<second>Z"}}` */
export function behest(
  variant: string,
  runId: string,
  second: string,
  payload: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    [variant]: { run_id: runId, ...payload, timestamp: `2025-06-01T12:00:${second}Z` },
  });
}

/** A complete one-tool run: started, one iteration with a tool, a second iteration, completed. */
export function toolRun(runId = RUN_A): string[] {
  return [
    behest('RunStarted', runId, '00.000', {
      session_id: SESSION,
      provider: 'openai',
      model: 'gpt-4o-mini',
    }),
    behest('ContextBuilt', runId, '00.100', { message_count: 3 }),
    behest('ModelStarted', runId, '00.200', {
      provider: 'openai',
      model: 'gpt-4o-mini',
      iteration: 1,
    }),
    behest('TextDelta', runId, '00.700', { delta: 'Let me check ' }),
    behest('ToolCallStarted', runId, '00.800', { call_id: 'call_1', tool_name: 'get_weather' }),
    behest('ToolCallCompleted', runId, '00.850', {
      call: { id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } },
    }),
    behest('UsageRecorded', runId, '00.900', {
      usage: { input_tokens: 412, output_tokens: 37, total_tokens: 449 },
    }),
    behest('AssistantMessageCommitted', runId, '01.000', {
      message_id: '7a1c2d3e-4f50-4617-8a9b-0c1d2e3f4a5b',
    }),
    behest('ToolExecutionStarted', runId, '01.100', {
      call_id: 'call_1',
      tool_name: 'get_weather',
    }),
    behest('ToolExecutionFinished', runId, '01.142', {
      call_id: 'call_1',
      tool_name: 'get_weather',
      result: { Success: { output: { temp_c: 21 } } },
      duration_ms: 42,
    }),
    behest('ToolMessageCommitted', runId, '01.150', {
      message_id: '8b2d3e4f-5061-4728-9bac-1d2e3f4a5b6c',
    }),
    behest('ModelStarted', runId, '01.200', {
      provider: 'openai',
      model: 'gpt-4o-mini',
      iteration: 2,
    }),
    behest('TextDelta', runId, '01.500', { delta: 'It is 21 °C.' }),
    behest('UsageRecorded', runId, '01.600', {
      usage: { input_tokens: 500, output_tokens: 10, total_tokens: 510 },
    }),
    behest('AssistantMessageCommitted', runId, '01.700', {
      message_id: '9c2d3e4f-5061-4728-9bac-1d2e3f4a5b6c',
    }),
    behest('RunCompleted', runId, '02', { finish_reason: 'stop', iterations: 2 }),
  ];
}

/** Tokens of one model call, input including its cached tokens. */
export interface CallTokens {
  readonly input: number;
  readonly output: number;
  readonly cacheRead?: number;
  readonly cacheWrite?: number;
}

/** A behest run of one call per entry, on `model`; usage with its cache counts. */
export function usageRun(
  runId: string,
  provider: string,
  model: string,
  calls: readonly CallTokens[],
): string {
  const lines = [behest('RunStarted', runId, '00.000', { session_id: SESSION, provider, model })];
  calls.forEach((call, i) => {
    const at = (ms: number) => (1 + i + ms / 1000).toFixed(3).padStart(6, '0');
    lines.push(
      behest('ModelStarted', runId, at(0), { provider, model, iteration: i + 1 }),
      behest('TextDelta', runId, at(100), { delta: 'ok' }),
      behest('UsageRecorded', runId, at(200), {
        usage: {
          input_tokens: call.input,
          output_tokens: call.output,
          total_tokens: call.input + call.output,
          cache_read_input_tokens: call.cacheRead ?? null,
          cache_creation_input_tokens: call.cacheWrite ?? null,
        },
      }),
      behest('AssistantMessageCommitted', runId, at(300), { message_id: `m-${i}` }),
    );
  });
  lines.push(behest('RunCompleted', runId, '09.000', { finish_reason: 'stop' }));
  return lines.join('\n');
}
