// `serve --workers N` gives what one thread gives: the same answers line by line, the same spans
// (ids, times, attributes, status, events), the same runs, every span delivered and each run
// counted once in `agent.runs` over the workers' metrics. behest runs sent over many requests are
// split between workers by run id; a named stream of a runtime without run ids stays on one
// worker across requests; each worker's metrics are a series of their own.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createDemoLines } from '../../src/sources/demo-runs.js';
import { runCli, startCli } from '../helpers/cli.js';
import { startOtlpReceiver, totalCounted } from '../helpers/otlp-receiver.js';
import type { OtlpSpan } from '../helpers/otlp-protobuf.js';
import { timelessFingerprint, wireFingerprint } from '../helpers/wire-spans.js';

const fixture = (path: string) =>
  readFileSync(fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url)), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
const behest = createDemoLines(90, Date.UTC(2025, 5, 1, 12));
const STAMPED = new Set(behest.map((l) => /"run_id":"([^"]+)"/.exec(l)![1]!.replaceAll('-', '')));
const view = (s: OtlpSpan) =>
  STAMPED.has(s.traceId) ? wireFingerprint(s) : timelessFingerprint(s);

interface Request {
  readonly lines: readonly string[];
  readonly headers?: Record<string, string>;
}
const oxi = fixture('oxi/agent-loop.ndjson');
const half = Math.floor(oxi.length / 2);
const REQUESTS: readonly Request[] = [
  // behest runs interleaved, 40 lines a request: each run's events span several requests.
  ...Array.from({ length: Math.ceil(behest.length / 40) }, (_, i) => ({
    lines: behest.slice(i * 40, i * 40 + 40),
  })),
  // One oxi run over two requests of a named stream.
  { lines: oxi.slice(0, half), headers: { 'x-agent-stream': 'oxi-loop' } },
  { lines: oxi.slice(half), headers: { 'x-agent-stream': 'oxi-loop' } },
  { lines: fixture('agent-sdk/loop.ndjson') },
  { lines: fixture('behest/garbage.ndjson'), headers: { 'x-agent-dialect': 'behest' } },
];

async function serve(workers: number) {
  const receiver = await startOtlpReceiver();
  const cli = startCli(['serve', '--port', '0', '--workers', String(workers)], {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_RESOURCE_ATTRIBUTES: 'service.instance.id=bridge-a',
  });
  try {
    await cli.waitForStderr(/listening on (http:\/\/\S+)\/v1\/events/);
    const url = /listening on (http:\/\/\S+)\/v1\/events/.exec(cli.stderr())![1]!;
    const answers: unknown[] = [];
    for (const request of REQUESTS) {
      const response = await fetch(`${url}/v1/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson', ...request.headers },
        body: request.lines.join('\n'),
      });
      answers.push({ status: response.status, body: await response.json() });
    }
    const result = await cli.stop('SIGTERM');
    return {
      result,
      answers,
      spans: new Set(receiver.spans.map(view)),
      spanCount: receiver.spans.length,
      stamped: receiver.spans.filter((s) => STAMPED.has(s.traceId)).length,
      instances: [...receiver.metricsByInstance.keys()].sort(),
      counted: totalCounted(receiver),
    };
  } finally {
    await cli.stop('SIGKILL');
    await receiver.close();
  }
}

describe('serve --workers', () => {
  it('answers, maps and delivers as one thread does', async () => {
    const one = await serve(1);
    const three = await serve(3);
    expect(one.result.code).toBe(0);
    expect(three.result.code).toBe(0);
    expect(three.answers).toEqual(one.answers);
    // The garbage request's rejections, with their line numbers, came back from the workers.
    expect(one.answers.at(-1)).toMatchObject({
      status: 200,
      body: { accepted: 3, rejected: 8, ignored: 1 },
    });
    const onlyIn = (a: Set<string>, b: Set<string>) => [...a].filter((x) => !b.has(x));
    expect([onlyIn(three.spans, one.spans), onlyIn(one.spans, three.spans)]).toEqual([[], []]);
    expect(three.spanCount).toBe(one.spanCount);
    expect(one.stamped).toBeGreaterThan(500);
    // Every oxi span is one run's: the named stream stayed whole on one worker.
    expect(one.spans.size).toBeGreaterThan(one.stamped);
    const summary = (out: string) =>
      out.split('\n').filter((l) => /^\s+(events|runs|delivered)\b/.test(l));
    expect(summary(three.result.stdout)).toEqual(summary(one.result.stdout));
    expect(three.result.stdout).toMatch(/delivered (\d+) of \1 spans/);
    const runs = /runs\s+completed (\d+)\s+failed (\d+)\s+cancelled (\d+)\s+abandoned (\d+)/
      .exec(one.result.stdout)!
      .slice(1)
      .reduce((t, n) => t + Number(n), 0);
    expect(runs).toBeGreaterThan(90);
    expect(one.counted).toBe(runs);
    expect(three.counted).toBe(runs);
    expect(one.instances).toEqual(['bridge-a']);
    expect(three.instances).toEqual(['bridge-a-w1', 'bridge-a-w2', 'bridge-a-w3']);
  }, 90_000);

  it('says that Prometheus needs one worker', async () => {
    const result = await runCli(['serve', '--workers', '2', '--prometheus-port', '9464']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--prometheus-port');
  });
});
