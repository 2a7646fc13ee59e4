import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import type { CliResult } from '../helpers/cli.js';
import { createHarness } from '../helpers/harness.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import type { OtlpReceiver } from '../helpers/otlp-receiver.js';
import type { OtlpHistogram } from '../helpers/otlp-protobuf.js';

const FIXTURES = [
  'tools-success-failure',
  'doom-loop',
  'breaker',
  'cancelled-mid-tool',
  'abandoned',
  'concurrent',
];
const fixturePath = (name: string) =>
  fileURLToPath(new URL(`../fixtures/behest/${name}.ndjson`, import.meta.url));

/** The same input mapped in-process: what the wire must carry, span for span. */
function expectedSpans(): string[] {
  const h = createHarness({ agentName: 'e2e-agent' });
  for (const name of FIXTURES) h.feed(readFileSync(fixturePath(name), 'utf8'));
  h.sink.endOpenRuns('end_of_input');
  const ns = (t: [number, number]) => (BigInt(t[0]) * 1_000_000_000n + BigInt(t[1])).toString();
  return h
    .spans()
    .map(
      (s) =>
        `${s.spanContext().traceId} ${s.spanContext().spanId} ${s.parentSpanContext?.spanId ?? ''} ${s.name} ${ns(s.startTime)} ${ns(s.endTime)} ${s.status.code}`,
    )
    .sort();
}

describe.each(['http/json', 'http/protobuf'])('ingest → OTLP over %s', (protocol) => {
  let receiver: OtlpReceiver;
  let result: CliResult;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    result = await runCli(['ingest', '--agent-name', 'e2e-agent', ...FIXTURES.map(fixturePath)], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      OTEL_SERVICE_NAME: 'e2e-bridge',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
    });
  });
  afterAll(() => receiver.close());

  it('exits 0 and prints only the summary', () => {
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`export  OTLP ${protocol} → ${receiver.url}/v1/traces`);
    expect(result.stdout).toMatch(
      /runs {4}completed 25 {2}failed 18 {2}cancelled 9 {2}abandoned 1/,
    );
    expect(result.stdout).not.toContain('trace ');
    expect(receiver.contentTypes).toEqual(
      new Set([protocol === 'http/json' ? 'application/json' : 'application/x-protobuf']),
    );
  });

  it('delivers every span with its ids, parentage and nanosecond times', () => {
    const wire = receiver.spans
      .map(
        (s) =>
          `${s.traceId} ${s.spanId} ${s.parentSpanId} ${s.name} ${s.startTimeUnixNano} ${s.endTimeUnixNano} ${s.status.code}`,
      )
      .sort();
    expect(wire).toEqual(expectedSpans());
    const run = receiver.spans.find(
      (s) => s.attributes['agent.run.id'] === '5b0c1a2e-1111-4a6b-8c7d-000000000001',
    );
    expect(run).toMatchObject({
      traceId: '5b0c1a2e11114a6b8c7d000000000001',
      name: 'invoke_agent e2e-agent',
      startTimeUnixNano: '1748779200000000001',
      attributes: {
        'gen_ai.response.finish_reasons': ['stop'],
        'gen_ai.usage.input_tokens': 942,
        'agent.run.outcome': 'completed',
      },
    });
    const failedTool = receiver.spans.find((s) => s.name === 'execute_tool get_forecast');
    expect(failedTool?.status).toEqual({ code: 2, message: 'upstream 503 (api_key=[REDACTED])' });
    expect(receiver.resources[0]).toMatchObject({
      'service.name': 'e2e-bridge',
      'deployment.environment.name': 'test',
    });
  });

  it('delivers the metrics with their names, units, attributes and buckets', () => {
    const points = (name: string) =>
      receiver.metrics.filter((m) => m.name === name).flatMap((m) => m.points);
    const sum = (name: string, match: Record<string, unknown>) =>
      points(name)
        .filter((p) => Object.entries(match).every(([k, v]) => p.attributes[k] === v))
        .reduce((t, p) => t + (p.value as number), 0);
    expect(sum('agent.runs', { 'agent.run.outcome': 'failed' })).toBe(18);
    expect(sum('agent.runs', { 'agent.run.outcome': 'abandoned' })).toBe(1);
    expect(sum('agent.doom_loops', { 'gen_ai.agent.name': 'e2e-agent' })).toBe(9);
    expect(sum('agent.compaction.circuit_breaker.opened', {})).toBe(9);
    expect(sum('agent_bridge.runs.evicted', { 'agent_bridge.reason': 'end_of_input' })).toBe(1);
    expect(receiver.metrics.find((m) => m.name === 'gen_ai.client.token.usage')?.unit).toBe(
      '{token}',
    );
    const tokens = points('gen_ai.client.token.usage').find(
      (p) =>
        p.attributes['gen_ai.token.type'] === 'input' &&
        p.attributes['gen_ai.request.model'] === 'claude-sonnet-4',
    );
    expect(tokens?.value).toMatchObject({ count: 3, sum: 6000 });
    expect((tokens?.value as OtlpHistogram).explicitBounds).toEqual([
      1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
    ]);
    const tool = points('gen_ai.execute_tool.duration').find(
      (p) => p.attributes['gen_ai.tool.name'] === 'get_forecast',
    );
    expect(tool?.attributes).toEqual({
      'gen_ai.tool.name': 'get_forecast',
      'agent.tool.outcome': 'failure',
      'error.type': 'tool_error',
    });
    expect((tool?.value as OtlpHistogram).sum).toBeCloseTo(3, 9);
  });
});

describe('ingest input handling', () => {
  it('reads stdin, reports rejected lines with line numbers, and fails under --strict', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const garbage = readFileSync(fixturePath('garbage'));
      const env = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
      const lenient = await runCli(['ingest'], env, garbage);
      expect(lenient.code).toBe(0);
      expect(lenient.stderr.split('\n').slice(0, 3)).toEqual([
        `stdin:2: rejected: not JSON: Unexpected token 'h', "this is not json" is not valid JSON`,
        'stdin:3: rejected: not JSON: Unexpected end of JSON input',
        'stdin:4: rejected: expected a JSON object, got an array',
      ]);
      expect(lenient.stderr).toContain(
        'stdin:7: rejected: ModelStarted.timestamp: expected an RFC 3339 timestamp, got "noon"',
      );
      expect(lenient.stdout).toMatch(/accepted 3 {2}rejected 8 {2}ignored 1/);
      const strict = await runCli(['ingest', '--strict', '-'], env, garbage);
      expect(strict.code).toBe(1);
    } finally {
      await receiver.close();
    }
  });

  it('exits 2 with one line on a bad flag', async () => {
    const result = await runCli(['ingest', '--dialect', 'klingon']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'agent-otel-bridge: --dialect must be one of auto, behest, oxi, agent-sdk, crabtalk, got klingon\n',
    );
  });

  it('says which file is missing', async () => {
    const result = await runCli(['ingest', '--output', 'terminal', '/nonexistent/events.ndjson']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('cannot read /nonexistent/events.ndjson: no such file');
  });
});

describe('embedded default', () => {
  it('draws the demo runs as trace trees in the terminal and says how to export', async () => {
    const result = await runCli(['demo', '--output', 'terminal']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^trace [0-9a-f]{32} {2}run [0-9a-f-]{36}$/m);
    expect(result.stdout).toContain('invoke_agent demo-agent');
    expect(result.stdout).toMatch(
      /execute_tool lookup_order {2}3\.000s {2}failure {2}ERROR tool_error: timeout after 3000 ms \(db password=\[REDACTED\]\)/,
    );
    expect(result.stdout).toContain(
      '• agent.doom_loop.detected consecutive duplicate: read_file called 3 times',
    );
    expect(result.stdout).toContain('• agent.compaction.circuit_breaker.opened 3');
    expect(result.stdout).toMatch(/runs {4}completed 3 {2}failed 2 {2}cancelled 1 {2}abandoned 0/);
    expect(result.stdout).toContain(
      'To export: start a collector (docker compose up -d) or set OTEL_EXPORTER_OTLP_ENDPOINT',
    );
  });
});
