// A long run seen while it runs, through a real `serve` and a real OTLP receiver: each model call's
// span and tokens arrive after the call ends (not at the run's end), the open-run gauges and
// `GET /runs` show the run, and `top` draws it; at the end the root arrives and no span id was
// ever exported with two contents.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import type { RunningCli } from '../helpers/cli.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import type { OtlpReceiver } from '../helpers/otlp-receiver.js';
import type { OtlpMetric } from '../helpers/otlp-protobuf.js';
import { divergentDuplicates, waitFor } from '../helpers/wire-spans.js';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { deleteNatsStream, NATS_URL } from '../helpers/brokers.js';
import { partitionOf } from '../../src/partitions/partition-of.js';

const INTERVAL_MILLIS = 1000;

/** A behest line of `runId` stamped `at` (epoch ms). */
const line = (variant: string, runId: string, at: number, payload: Record<string, unknown> = {}) =>
  JSON.stringify({
    [variant]: { run_id: runId, ...payload, timestamp: new Date(at).toISOString() },
  });

/** One model call of iteration `n`, `at` its start: streamed text, usage, commit. */
const call = (runId: string, n: number, at: number, input: number, output: number) => [
  line('ModelStarted', runId, at, { provider: 'openai', model: 'gpt-4o-mini', iteration: n }),
  line('TextDelta', runId, at + 50, { delta: 'thinking' }),
  line('UsageRecorded', runId, at + 100, {
    usage: { input_tokens: input, output_tokens: output, total_tokens: input + output },
  }),
  line('AssistantMessageCommitted', runId, at + 150, { message_id: randomUUID() }),
];

const tokensOf = (metrics: readonly OtlpMetric[], type: string): number =>
  metrics
    .filter((m) => m.name === 'gen_ai.client.token.usage')
    .flatMap((m) => m.points)
    .filter((p) => p.attributes['gen_ai.token.type'] === type)
    .reduce((sum, p) => sum + (p.value as { sum: number }).sum, 0);

const gauge = (metrics: readonly OtlpMetric[], name: string): number =>
  metrics
    .filter((m) => m.name === name)
    .flatMap((m) => m.points)
    .reduce((sum, p) => sum + Number(p.value), 0);

describe('a run seen while it runs (serve)', () => {
  let receiver: OtlpReceiver;
  let cli: RunningCli;
  let url: string;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    cli = startCli(['serve', '--port', '0', '--agent-name', 'live'], {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_METRIC_EXPORT_INTERVAL: String(INTERVAL_MILLIS),
      OTEL_BSP_SCHEDULE_DELAY: '200',
    });
    await cli.waitForStderr(/listening on (http:\/\/\S+)\/v1\/events/);
    url = /listening on (http:\/\/\S+)\/v1\/events/.exec(cli.stderr())![1]!;
  });
  afterAll(async () => {
    await cli.stop('SIGKILL');
    await receiver.close();
  });

  const post = async (lines: readonly string[]) => {
    const response = await fetch(`${url}/v1/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: lines.join('\n'),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ accepted: lines.length });
  };
  const runs = async () =>
    (await (await fetch(`${url}/runs`)).json()) as {
      open: number;
      runs: { runId: string; iteration: number; inputTokens: number; lastEvent: string }[];
    };

  it('exports each model call and its tokens as it ends, the root at the end', async () => {
    const runId = randomUUID();
    const t0 = Date.now();
    const callSpans = () =>
      receiver.spans.filter(
        (s) =>
          s.attributes['agent.run.id'] === undefined &&
          s.name.startsWith('chat') &&
          s.traceId === runId.replaceAll('-', ''),
      );
    const root = () =>
      receiver.spans.filter(
        (s) => s.name === 'invoke_agent live' && s.traceId === runId.replaceAll('-', ''),
      );

    await post([
      line('RunStarted', runId, t0, { provider: 'openai', model: 'gpt-4o-mini' }),
      ...call(runId, 1, t0 + 10, 400, 40),
    ]);
    const sent = Date.now();
    await waitFor(
      () => callSpans().length === 1 && tokensOf(receiver.metrics, 'input') === 400,
      15_000,
      'the first call and its tokens',
    );
    const firstLatency = Date.now() - sent;
    expect(root()).toEqual([]);
    expect(callSpans()[0]!.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 400,
      'agent.iteration.number': 1,
    });
    // The live view: the gauges (by agent and model) and GET /runs.
    await waitFor(
      () => gauge(receiver.metrics, 'agent.runs.open') === 1,
      15_000,
      'the open-run gauge',
    );
    expect(gauge(receiver.metrics, 'agent.runs.open.oldest_age')).toBeGreaterThanOrEqual(0);
    const listed = await runs();
    expect(listed.open).toBe(1);
    expect(listed.runs[0]).toMatchObject({
      runId,
      iteration: 1,
      inputTokens: 400,
      lastEvent: 'AssistantMessageCommitted',
      agent: 'live',
    });

    // A tool, then a second call: it arrives too, with the tokens added up.
    await post([
      line('ToolExecutionStarted', runId, t0 + 200, { call_id: 'c1', tool_name: 'search' }),
      line('ToolExecutionFinished', runId, t0 + 300, {
        call_id: 'c1',
        tool_name: 'search',
        result: { Success: { output: 'ok' } },
        duration_ms: 100,
      }),
      ...call(runId, 2, t0 + 400, 600, 60),
    ]);
    await waitFor(
      () => callSpans().length === 2 && tokensOf(receiver.metrics, 'input') === 1000,
      15_000,
      'the second call and its tokens',
    );
    expect(root()).toEqual([]);
    expect(gauge(receiver.metrics, 'agent.runs.open.tokens')).toBe(1100);

    await post([line('RunCompleted', runId, t0 + 700, { finish_reason: 'stop', iterations: 2 })]);
    await waitFor(() => root().length === 1, 15_000, 'the root span');
    expect(root()[0]!.attributes).toMatchObject({ 'gen_ai.usage.input_tokens': 1000 });
    await waitFor(
      () => gauge(receiver.metrics, 'agent.runs.open') === 0,
      15_000,
      'the gauge back at 0',
    );
    expect((await runs()).open).toBe(0);
    expect(divergentDuplicates(receiver.spans)).toEqual([]);
    expect(tokensOf(receiver.metrics, 'input')).toBe(1000);
    console.log(
      `first model call on the collector ${firstLatency} ms after it was posted (metric interval ${INTERVAL_MILLIS} ms)`,
    );
  });

  it('lists 1 000 open runs, and top draws them', async () => {
    const t0 = Date.now() - 60_000;
    const lines: string[] = [];
    for (let i = 0; i < 1000; i += 1) {
      const runId = randomUUID();
      lines.push(
        line('RunStarted', runId, t0 + i * 10, {
          provider: 'openai',
          model: i % 3 === 0 ? 'gpt-4o' : 'gpt-4o-mini',
        }),
      );
      lines.push(...call(runId, 1, t0 + i * 10 + 1, 100 + i, 10));
    }
    await post(lines);
    await waitFor(async () => (await runs()).open === 1000, 15_000, '1 000 open runs');
    const limited = await runs();
    expect(limited.runs).toHaveLength(1000);
    const five = (await (await fetch(`${url}/runs?limit=5`)).json()) as { runs: unknown[] };
    expect(five.runs).toHaveLength(5);
    expect((await fetch(`${url}/runs?limit=0`)).status).toBe(400);
    const top = await runCli(['top', url, '--once']);
    expect(top.stderr).toBe('');
    expect(top.code).toBe(0);
    const screen = top.stdout.split('\n');
    expect(screen[1]).toMatch(/^1000 runs open · oldest 1m\d\ds · tokens so far /);
    expect(screen[3]).toMatch(/^RUN ID\s+AGE\s+ITER\s+IN TOK/);
    expect(screen[4]).toContain(limited.runs[0]!.runId);
    expect(top.stdout).toContain('… 950 more');
  });

  it('says where a bridge cannot be read', async () => {
    const top = await runCli(['top', 'http://127.0.0.1:9', '--once']);
    expect(top.code).toBe(1);
    expect(top.stderr).toMatch(/cannot read http:\/\/127\.0\.0\.1:9\/runs/);
  });
});

describe('the runs in progress of a broker mode (nats --partitions --status-port)', () => {
  it('lists each open run with its partition, as top shows them', async () => {
    const id = randomUUID().slice(0, 8);
    const stream = `AOB_LIVE_${id}`;
    const subject = `live.${id}.events`;
    const partitions = 4;
    const nc = await connect({ servers: NATS_URL });
    await (await jetstreamManager(nc)).streams.add({ name: stream, subjects: [`${subject}.*`] });
    const js = jetstream(nc);
    const t0 = Date.now();
    const ids = Array.from({ length: 8 }, () => randomUUID());
    for (const runId of ids) {
      const p = partitionOf(runId, partitions);
      for (const text of [
        line('RunStarted', runId, t0, { provider: 'openai', model: 'gpt-4o-mini' }),
        ...call(runId, 1, t0 + 10, 50, 5),
      ])
        await js.publish(`${subject}.${p}`, text);
    }
    await nc.drain();
    const cli = startCli([
      'nats',
      '--url',
      NATS_URL,
      '--stream',
      stream,
      '--subject',
      subject,
      '--partitions',
      String(partitions),
      '--lease-ms',
      '1500',
      '--status-port',
      '0',
    ]);
    try {
      await cli.waitForStderr(/runs in progress at (http:\/\/\S+)\/runs/);
      const base = /runs in progress at (http:\/\/\S+)\/runs/.exec(cli.stderr())![1]!;
      let view = {
        open: 0,
        runs: [] as { runId: string; partition?: number; inputTokens: number }[],
      };
      await waitFor(
        async () => {
          view = (await (await fetch(`${base}/runs`)).json()) as typeof view;
          return view.open === ids.length;
        },
        20_000,
        `${ids.length} open runs on ${base}/runs`,
      );
      for (const run of view.runs) {
        expect(run.partition).toBe(partitionOf(run.runId, partitions));
        expect(run.inputTokens).toBe(50);
      }
      expect(view.runs.map((r) => r.runId).sort()).toEqual([...ids].sort());
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const top = await runCli(['top', base, '--once']);
      expect(top.stdout).toMatch(/PART/);
      expect(top.stdout.split('\n')[1]).toMatch(/^8 runs open/);
    } finally {
      await cli.stop('SIGKILL');
      await deleteNatsStream(stream);
    }
  });
});

describe('the runs in progress of serve --workers', () => {
  it('gathers them from every worker thread, oldest first', async () => {
    const cli = startCli(['serve', '--port', '0', '--workers', '2'], {
      OTEL_TRACES_EXPORTER: 'none',
      OTEL_METRICS_EXPORTER: 'none',
    });
    try {
      await cli.waitForStderr(/listening on (http:\/\/\S+)\/v1\/events/);
      const base = /listening on (http:\/\/\S+)\/v1\/events/.exec(cli.stderr())![1]!;
      const t0 = Date.now() - 10_000;
      const ids = Array.from({ length: 40 }, () => randomUUID());
      const lines = ids.flatMap((runId, i) => [
        line('RunStarted', runId, t0 + i, { provider: 'openai', model: 'gpt-4o-mini' }),
        ...call(runId, 1, t0 + i + 1, 10, 1),
      ]);
      const response = await fetch(`${base}/v1/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: lines.join('\n'),
      });
      expect(response.status).toBe(200);
      let view = { open: 0, runs: [] as { runId: string; startedAt: string }[] };
      await waitFor(
        async () => {
          view = (await (await fetch(`${base}/runs?limit=30`)).json()) as typeof view;
          return view.open === ids.length;
        },
        15_000,
        `${ids.length} open runs over both workers`,
      );
      // The 30 oldest of both workers' runs, in order of their start.
      expect(view.runs.map((r) => r.runId)).toEqual(ids.slice(0, 30));
    } finally {
      await cli.stop('SIGKILL');
    }
  });
});
