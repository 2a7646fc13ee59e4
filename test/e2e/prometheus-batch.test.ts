// The dashboard and alert rules read true for short-lived and restarted processes, on a real
// Prometheus (Debian's 2.42): batch `ingest` runs, which export their metrics once at exit, and a
// `serve` restarted under a new service.instance.id. The bridge exports over OTLP as in the local
// stack; no collector binary runs here, so `renderExposition` stands in for the collector's
// `prometheus` exporter between the OTLP receiver and Prometheus (each process's latest cumulative
// points, `job`/`instance` from its resource).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboard, panelQueries } from '../../observability/grafana/dashboard.js';
import { usageRun } from '../helpers/behest-lines.js';
import { runCli, startCli } from '../helpers/cli.js';
import { fixtureCopies } from '../helpers/fixture-logs.js';
import { createHarness } from '../helpers/harness.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import type { OtlpReceiver } from '../helpers/otlp-receiver.js';
import { renderExposition } from '../helpers/prometheus-exposition.js';
import { startPrometheus } from '../helpers/prometheus.js';
import type { TestPrometheus } from '../helpers/prometheus.js';
import { waitFor } from '../helpers/wire-spans.js';

const HEALTHY = ['unknown-finish-reason', '5b0c1a2e-5555-4a6b-8c7d-000000000005'] as const;
const FAILING = ['breaker', '5b0c1a2e-3333-4a6b-8c7d-000000000003'] as const;
const TOOLS = ['tools-success-failure', '5b0c1a2e-1111-4a6b-8c7d-000000000001'] as const;
const DOOM = ['doom-loop', '5b0c1a2e-2222-4a6b-8c7d-000000000002'] as const;
/** A run on a priced model with cache reads, costing about $19, and one on a model no table prices. */
const SPEND =
  usageRun('5b0c1a2e-7777-4a6b-8c7d-000000000007', 'anthropic', 'claude-sonnet-4-20250514', [
    { input: 2_000_000, output: 500_000, cacheRead: 1_500_000 },
    { input: 2_000_000, output: 500_000, cacheRead: 1_500_000 },
  ]) +
  '\n' +
  usageRun('5b0c1a2e-8888-4a6b-8c7d-000000000008', 'vllm', 'acme-internal-70b', [
    { input: 40_000, output: 4_000 },
  ]) +
  '\n';
/** Panels whose signal a finished batch has none of: no run is open, none was evicted. */
const ZERO_WITHOUT_THEIR_SIGNAL = ['Active runs', 'Runs evicted'];

/** Runs by outcome in NDJSON text, as the bridge maps them. */
function outcomes(ndjson: string): Record<string, number> {
  const h = createHarness();
  h.feed(ndjson);
  const { completed, failed, cancelled } = h.sink.stats().runs;
  return { completed, failed, cancelled };
}

/** Cost, unpriced share and cache hits of NDJSON text, as the bridge itself counts them. */
async function costs(ndjson: string) {
  const h = createHarness({ agentName: 'batch-bot' });
  h.feed(ndjson);
  const tokens = (match: Record<string, string>) => h.sum('agent.tokens', match);
  const claude = { 'gen_ai.request.model': 'claude-sonnet-4-20250514' };
  const cacheRead = await tokens({ ...claude, 'agent.token.class': 'cache_read' });
  const input =
    cacheRead +
    (await tokens({ ...claude, 'agent.token.class': 'input' })) +
    (await tokens({ ...claude, 'agent.token.class': 'cache_write' }));
  return {
    usd: await h.sum('agent.cost.usd'),
    unpricedShare: (await tokens({ 'agent.cost.status': 'unpriced' })) / (await tokens({})),
    claudeCacheHits: cacheRead / input,
  };
}

/** A dashboard panel's query, its variables set as Grafana would (all agents, 10 min range). */
function panel(title: string, rateInterval = '1m'): string {
  const found = panelQueries(buildDashboard()).find((p) => p.panel === title);
  if (found === undefined) throw new Error(`no panel ${title}`);
  return found.expr
    .replaceAll('$__rate_interval', rateInterval)
    .replaceAll('$__range', '10m')
    .replace(/\$(agent|provider|model|tool)\b/g, '.*');
}

describe('dashboard and alerts for short-lived and restarted processes', () => {
  let receiver: OtlpReceiver;
  let exposition: Server;
  let prometheus: TestPrometheus;
  const dir = mkdtempSync(join(tmpdir(), 'prometheus-batch-'));
  const env = () => ({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_TRACES_EXPORTER: 'none',
    OTEL_METRIC_EXPORT_INTERVAL: '500',
  });
  /** Runs per outcome of an agent as the "Runs by outcome" panel reads them over 10 minutes. */
  const runsByOutcome = async (agent: string) =>
    Object.fromEntries(
      (
        await prometheus.query(
          panel('Runs by outcome', '10m').replace(
            'gen_ai_agent_name=~".*"',
            `gen_ai_agent_name="${agent}"`,
          ),
        )
      )
        // increase() extrapolates by up to half a scrape interval: whole runs to the nearest one.
        .map((s) => [s.metric['agent_run_outcome'] ?? '', Math.round(s.value)]),
    );

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    exposition = createServer((_request, response) => {
      response.setHeader('content-type', 'text/plain; version=0.0.4');
      response.end(renderExposition(receiver.metricsByInstance));
    });
    await new Promise<void>((resolve) => exposition.listen(0, '127.0.0.1', resolve));
    prometheus = await startPrometheus([`127.0.0.1:${(exposition.address() as AddressInfo).port}`]);
  });

  afterAll(async () => {
    prometheus?.stop();
    exposition?.close();
    await receiver?.close();
  });

  it('counts the runs of batch ingests whose series appear with their final values', async () => {
    const first =
      fixtureCopies(...HEALTHY, 40, 1) +
      fixtureCopies(...FAILING, 17, 2) +
      fixtureCopies(...TOOLS, 5, 4) +
      fixtureCopies(...DOOM, 3, 5) +
      SPEND;
    const expected = outcomes(first);
    const spent = await costs(first);
    expect(spent.usd).toBeGreaterThan(10);
    expect(expected.failed).toBeGreaterThan(0);
    const file = join(dir, 'first.ndjson');
    writeFileSync(file, first);
    const result = await runCli(['ingest', file, '--agent-name', 'batch-bot', '--quiet'], env());
    expect(result.code).toBe(0);
    await waitFor(
      async () =>
        (await prometheus.query('sum(agent_runs_total{gen_ai_agent_name="batch-bot"})')).length > 0,
      20_000,
      'the batch series scraped',
    );
    await prometheus.settle();

    // increase() alone reads nothing: every series starts at its final value.
    const [plain] = await prometheus.query(
      'sum(increase(agent_runs_total{gen_ai_agent_name="batch-bot"}[10m]))',
    );
    expect(plain?.value ?? 0).toBe(0);
    // The dashboard and the alert read the runs.
    expect(await runsByOutcome('batch-bot')).toEqual(
      Object.fromEntries(Object.entries(expected).filter(([, n]) => n > 0)),
    );
    // Every panel reads what the batch holds (over a 10-minute window): none reads only zeros but
    // those of signals the batch has none of.
    const zero: string[] = [];
    for (const { panel: title } of panelQueries(buildDashboard())) {
      const series = await prometheus.query(panel(title, '10m'));
      if (!series.some((s) => s.value > 0)) zero.push(title);
    }
    console.log(`panels reading only 0 after the batch: ${zero.join(', ') || 'none'}`);
    expect(zero).toEqual(ZERO_WITHOUT_THEIR_SIGNAL);
    // The cost panels read what the bridge priced; the unpriced share and cache hits likewise.
    const [byAgent] = await prometheus.query(panel('Cost by agent', '10m'));
    expect(byAgent?.metric['gen_ai_agent_name']).toBe('batch-bot');
    expect(byAgent?.value).toBeCloseTo(spent.usd, 6);
    const byModel = await prometheus.query(panel('Cost by model', '10m'));
    expect(byModel.reduce((sum, s) => sum + s.value, 0)).toBeCloseTo(spent.usd, 6);
    expect(byModel.map((s) => s.metric['gen_ai_request_model'])).not.toContain('acme-internal-70b');
    const [unpriced] = await prometheus.query(panel('Unpriced tokens'));
    expect(unpriced?.value).toBeCloseTo(spent.unpricedShare, 9);
    const cache = await prometheus.query(panel('Cache hit ratio', '10m'));
    const claude = cache.find(
      (s) => s.metric['gen_ai_request_model'] === 'claude-sonnet-4-20250514',
    );
    expect(claude?.value).toBeCloseTo(spent.claudeCacheHits, 9);
    await waitFor(
      async () => (await prometheus.firing()).includes('AgentCostBurnRateHigh'),
      20_000,
      'AgentCostBurnRateHigh',
    );
    const burn = (await prometheus.alerts()).find(
      (a) => a.labels['alertname'] === 'AgentCostBurnRateHigh',
    );
    expect(burn?.labels['gen_ai_agent_name']).toBe('batch-bot');
    const [ratio] = await prometheus.query(panel('Failure ratio'));
    expect(ratio?.value).toBeCloseTo(
      expected.failed! / (expected.completed! + expected.failed! + expected.cancelled!),
      6,
    );
    await waitFor(
      async () => (await prometheus.firing()).includes('AgentRunFailureRatioHigh'),
      20_000,
      'AgentRunFailureRatioHigh',
    );
    const alert = (await prometheus.alerts()).find(
      (a) => a.labels['alertname'] === 'AgentRunFailureRatioHigh',
    );
    expect(alert?.labels['gen_ai_agent_name']).toBe('batch-bot');

    // A second batch, another process: its runs add to the first one's.
    const second = fixtureCopies(...HEALTHY, 10, 3);
    writeFileSync(join(dir, 'second.ndjson'), second);
    expect(
      (
        await runCli(
          ['ingest', join(dir, 'second.ndjson'), '--agent-name', 'batch-bot', '--quiet'],
          env(),
        )
      ).code,
    ).toBe(0);
    await waitFor(
      async () => (await runsByOutcome('batch-bot'))['completed'] === expected.completed! + 10,
      20_000,
      'both batches counted',
    );
    expect(await runsByOutcome('batch-bot')).toEqual({
      completed: expected.completed! + 10,
      failed: expected.failed,
    });
  });

  it('counts the runs of a serve restarted under a new instance id on top of the earlier ones', async () => {
    const serve = () => {
      const cli = startCli(['serve', '--port', '0', '--agent-name', 'serve-bot'], {
        ...env(),
        AGENT_OTEL_BRIDGE_HTTP_TOKEN: 'restart',
      });
      return cli;
    };
    const post = async (cli: ReturnType<typeof startCli>, body: string) => {
      await cli.waitForStderr(/listening on (http:\/\/\S+)\/v1\/events/);
      const url = /listening on (http:\/\/\S+)\/v1\/events/.exec(cli.stderr())![1]!;
      const response = await fetch(`${url}/v1/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson', authorization: 'Bearer restart' },
        body,
      });
      expect(response.status).toBe(200);
    };
    const firstBody = fixtureCopies(...HEALTHY, 8, 4) + fixtureCopies(...FAILING, 3, 5);
    const secondBody = fixtureCopies(...HEALTHY, 5, 6) + fixtureCopies(...FAILING, 4, 7);
    const [one, two] = [outcomes(firstBody), outcomes(secondBody)];
    // Each process exports its metrics at least when it stops (the periodic export waits out the
    // outage hold and its margin): restarts are what this is about.
    const before = serve();
    await post(before, firstBody);
    expect((await before.stop('SIGTERM')).code).toBe(0);
    await waitFor(
      async () => (await runsByOutcome('serve-bot'))['failed'] === one.failed,
      20_000,
      'the first process counted',
    );
    const after = serve();
    await post(after, secondBody);
    expect((await after.stop('SIGTERM')).code).toBe(0);
    const total = { completed: one.completed! + two.completed!, failed: one.failed! + two.failed! };
    await waitFor(
      async () => (await runsByOutcome('serve-bot'))['failed'] === total.failed,
      20_000,
      'both processes counted',
    );
    await prometheus.settle();
    expect(await runsByOutcome('serve-bot')).toEqual(total);
  });
});
