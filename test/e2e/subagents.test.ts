// Sub-agents across processes, through the real CLI and OTLP: the parent run ingested by one
// process, its sub-agent (behest's RunStarted with the bridge's documented `parent_run_id` /
// `parent_tool_call_id` / `agent_name` extension) by another; the receiver holds one trace with
// the sub-agent under the spawning tool span, no orphan and no second root.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { behest } from '../helpers/behest-lines.js';
import { runCli } from '../helpers/cli.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import type { OtlpReceiver } from '../helpers/otlp-receiver.js';

const PARENT = '0190f3a2-7c4e-4b8a-9d2e-cccccccccccc';
const CHILD = '0190f3a2-7c4e-4b8a-9d2e-dddddddddddd';

const parent = [
  behest('RunStarted', PARENT, '00.000', { provider: 'openai', model: 'gpt-4o-mini' }),
  behest('ModelStarted', PARENT, '00.100', {
    provider: 'openai',
    model: 'gpt-4o-mini',
    iteration: 1,
  }),
  behest('UsageRecorded', PARENT, '00.200', {
    usage: { input_tokens: 100, output_tokens: 10, total_tokens: 110 },
  }),
  behest('AssistantMessageCommitted', PARENT, '00.300', { message_id: 'm1' }),
  behest('ToolExecutionStarted', PARENT, '00.400', { call_id: 'spawn_1', tool_name: 'research' }),
  behest('ToolExecutionFinished', PARENT, '05.000', {
    call_id: 'spawn_1',
    tool_name: 'research',
    result: { Success: { output: 'ok' } },
    duration_ms: 4600,
  }),
  behest('RunCompleted', PARENT, '06.000', { finish_reason: 'stop' }),
];
const child = [
  behest('RunStarted', CHILD, '00.500', {
    provider: 'openai',
    model: 'gpt-4o-mini',
    agent_name: 'researcher',
    parent_run_id: PARENT,
    parent_tool_call_id: 'spawn_1',
  }),
  behest('ModelStarted', CHILD, '00.600', {
    provider: 'openai',
    model: 'gpt-4o-mini',
    iteration: 1,
  }),
  behest('UsageRecorded', CHILD, '00.700', {
    usage: { input_tokens: 40, output_tokens: 4, total_tokens: 44 },
  }),
  behest('AssistantMessageCommitted', CHILD, '00.800', { message_id: 'c1' }),
  behest('RunCompleted', CHILD, '04.000', { finish_reason: 'stop' }),
];

describe('sub-agents across processes', () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(() => receiver.close());

  it('gives one trace, the sub-agent under the spawning tool span, from two ingests', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'subagents-'));
    writeFileSync(join(dir, 'parent.ndjson'), `${parent.join('\n')}\n`);
    writeFileSync(join(dir, 'child.ndjson'), `${child.join('\n')}\n`);
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
    // The child first: the order of processes does not matter.
    expect((await runCli(['ingest', join(dir, 'child.ndjson'), '--quiet'], env)).code).toBe(0);
    expect((await runCli(['ingest', join(dir, 'parent.ndjson'), '--quiet'], env)).code).toBe(0);
    const spans = receiver.spans;
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([PARENT.replaceAll('-', '')]));
    const ids = new Set(spans.map((s) => s.spanId));
    expect(ids.size).toBe(spans.length);
    expect(spans.filter((s) => s.parentSpanId === '').map((s) => s.name)).toEqual(['invoke_agent']);
    for (const s of spans)
      if (s.parentSpanId !== '') expect(ids.has(s.parentSpanId), s.name).toBe(true);
    const tool = spans.find((s) => s.name === 'execute_tool research')!;
    const sub = spans.find((s) => s.name === 'invoke_agent researcher')!;
    expect(sub.parentSpanId).toBe(tool.spanId);
    // Each run's model call under its own iteration: the two `chat` spans are apart.
    const chats = spans.filter((s) => s.name === 'chat gpt-4o-mini');
    expect(chats).toHaveLength(2);
  });
});
