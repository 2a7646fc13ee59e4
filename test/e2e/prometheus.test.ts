// The shipped alert rules and dashboard against a real Prometheus (Debian's 2.42) scraping the
// bridge's own Prometheus endpoint while it ingests scenario runs.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboard, panelQueries } from '../../observability/grafana/dashboard.js';
import { startCli } from '../helpers/cli.js';
import type { RunningCli } from '../helpers/cli.js';
import { fixture as fixtureLines, fixtureCopies } from '../helpers/fixture-logs.js';
import { freePort } from '../helpers/free-port.js';
import { startPrometheus } from '../helpers/prometheus.js';
import type { TestPrometheus } from '../helpers/prometheus.js';
import { waitFor } from '../helpers/wire-spans.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

const TOKEN = 'prometheus-e2e';
const runs = fixtureCopies;
const fixture = (name: string) => fixtureLines(`behest/${name}.ndjson`).join('\n') + '\n';

describe('alert rules and dashboard on a real Prometheus', () => {
  let bridge: RunningCli;
  let prometheus: TestPrometheus;
  let bridgeUrl: string;
  let metricsPort: number;

  const post = async (body: string) => {
    const response = await fetch(`${bridgeUrl}/v1/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson', authorization: `Bearer ${TOKEN}` },
      body,
    });
    expect(response.status).toBe(200);
  };
  const startBridge = async () => {
    bridge = startCli(
      [
        'serve',
        '--port',
        '0',
        '--prometheus-port',
        String(metricsPort),
        '--agent-name',
        'support-bot',
      ],
      {
        AGENT_OTEL_BRIDGE_HTTP_TOKEN: TOKEN,
        AGENT_OTEL_BRIDGE_MAX_OPEN_RUNS: '5',
        OTEL_TRACES_EXPORTER: 'none',
        OTEL_METRICS_EXPORTER: 'none',
      },
    );
    await bridge.waitForStderr(/listening on (http:\/\/\S+)\/v1\/events/);
    bridgeUrl = /listening on (http:\/\/\S+)\/v1\/events/.exec(bridge.stderr())![1]!;
  };

  beforeAll(async () => {
    metricsPort = await freePort();
    await startBridge();
    // The scrape endpoint takes the events endpoint's token.
    prometheus = await startPrometheus([`127.0.0.1:${metricsPort}`], TOKEN);
  });

  afterAll(async () => {
    prometheus?.stop();
    await bridge?.stop('SIGKILL');
  });

  it('answers a scrape without the bearer token 401, with it the metrics', async () => {
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(401);
    const wrong = await fetch(`http://127.0.0.1:${metricsPort}/metrics`, {
      headers: { authorization: 'Bearer nope' },
    });
    expect(wrong.status).toBe(401);
    const right = await fetch(`http://127.0.0.1:${metricsPort}/metrics`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(right.status).toBe(200);
    expect(await right.text()).toContain('# HELP target_info');
  });

  it('passes its promtool unit tests', () => {
    const result = spawnSync('promtool', ['test', 'rules', 'alerts.test.yaml'], {
      cwd: join(root, 'observability/prometheus'),
      encoding: 'utf8',
    });
    expect(result.stdout + result.stderr).toContain('SUCCESS');
    expect(result.status).toBe(0);
  });

  it('fires nothing for healthy runs', async () => {
    await post(runs('unknown-finish-reason', '5b0c1a2e-5555-4a6b-8c7d-000000000005', 12, 1));
    await prometheus.settle();
    await prometheus.settle();
    expect(await prometheus.alerts()).toEqual([]);
  });

  it('fires the doom loop alert for a doom loop storm, with the agent and model', async () => {
    await post(runs('doom-loop', '5b0c1a2e-2222-4a6b-8c7d-000000000002', 6, 2));
    await waitFor(
      async () => (await prometheus.firing()).includes('AgentDoomLoopDetected'),
      20_000,
      'AgentDoomLoopDetected',
    );
    const alert = (await prometheus.alerts()).find(
      (a) => a.labels['alertname'] === 'AgentDoomLoopDetected',
    );
    expect(alert?.labels).toEqual({
      alertname: 'AgentDoomLoopDetected',
      severity: 'warning',
      gen_ai_agent_name: 'support-bot',
      gen_ai_provider_name: 'anthropic',
      gen_ai_request_model: 'claude-sonnet-4',
    });
  });

  it('fires failure ratio, tool error, breaker, abandonment, capacity and rejection alerts for a failure burst', async () => {
    const garbage = `${fixture('garbage')
      .split('\n')
      .filter((l) => !l.includes('run_id'))
      .join('\n')}\n`;
    // Each kind twice, a scrape apart: a counter series is born with its first sample, and
    // ratios count increases from there.
    for (const tag of [3, 5]) {
      await post(runs('breaker', '5b0c1a2e-3333-4a6b-8c7d-000000000003', 5, tag));
      await post(runs('tools-success-failure', '5b0c1a2e-1111-4a6b-8c7d-000000000001', 5, tag));
      await post(garbage.repeat(3));
      await prometheus.settle();
    }
    await post(runs('abandoned', '5b0c1a2e-6666-4a6b-8c7d-000000000006', 7, 4));
    const expected = [
      'AgentRunFailureRatioHigh',
      'AgentToolErrorRatioHigh',
      'AgentCompactionCircuitBreakerOpened',
      'AgentRunsAbandoned',
      'AgentBridgeEvictingRunsForCapacity',
      'AgentBridgeRejectingEvents',
    ];
    let lastFiring: string[] = [];
    await waitFor(
      async () => {
        lastFiring = await prometheus.firing();
        return expected.every((name) => lastFiring.includes(name));
      },
      20_000,
      'the failure-burst alerts',
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; firing: ${lastFiring.join(', ')}`);
    });
    expect(
      (await prometheus.alerts()).find((a) => a.labels['alertname'] === 'AgentRunFailureRatioHigh')
        ?.labels,
    ).toEqual({
      alertname: 'AgentRunFailureRatioHigh',
      severity: 'critical',
      gen_ai_agent_name: 'support-bot',
    });
    expect(
      (await prometheus.alerts()).find((a) => a.labels['alertname'] === 'AgentToolErrorRatioHigh')
        ?.labels,
    ).toEqual({
      alertname: 'AgentToolErrorRatioHigh',
      severity: 'warning',
      gen_ai_tool_name: 'get_forecast',
    });
  });

  it('runs every dashboard panel query without error, with data', async () => {
    await prometheus.settle(); // series born in the last step need a second sample for rate() and increase()
    const queries = panelQueries(buildDashboard());
    expect(queries.length).toBeGreaterThanOrEqual(15);
    for (const { panel, expr } of queries) {
      const promql = expr
        .replaceAll('$__rate_interval', '1m')
        .replaceAll('$__range', '10m')
        .replace(/\$(agent|provider|model|tool)\b/g, '.*');
      const results = await prometheus.query(promql);
      expect({ panel, promql, results: results.length > 0 }).toEqual({
        panel,
        promql,
        results: true,
      });
    }
  });
});
