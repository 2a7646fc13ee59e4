// The shipped alert rules and dashboard against a real Prometheus (Debian's 2.42) scraping the
// bridge's own Prometheus endpoint while it ingests scenario runs.
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboard, panelQueries } from '../../observability/grafana/dashboard.js';
import { startCli } from '../helpers/cli.js';
import type { RunningCli } from '../helpers/cli.js';
import { freePort } from '../helpers/free-port.js';
import { waitFor } from '../helpers/wire-spans.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixture = (name: string) =>
  readFileSync(join(root, `test/fixtures/behest/${name}.ndjson`), 'utf8');
const TOKEN = 'prometheus-e2e';

/** `copies` runs of a fixture, each with its own run id. */
function runs(name: string, runId: string, copies: number, tag: number): string {
  return Array.from({ length: copies }, (_, i) =>
    fixture(name).replaceAll(
      runId,
      `${runId.slice(0, 24)}${String(tag * 1000 + i).padStart(12, '0')}`,
    ),
  ).join('');
}

interface Alert {
  labels: Record<string, string>;
  state: string;
}

describe('alert rules and dashboard on a real Prometheus', () => {
  let dir: string;
  let bridge: RunningCli;
  let prometheus: ChildProcess;
  let bridgeUrl: string;
  let prometheusUrl: string;

  const post = async (body: string) => {
    const response = await fetch(`${bridgeUrl}/v1/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson', authorization: `Bearer ${TOKEN}` },
      body,
    });
    expect(response.status).toBe(200);
  };
  const alerts = async (): Promise<Alert[]> =>
    (
      (await (await fetch(`${prometheusUrl}/api/v1/alerts`)).json()) as {
        data: { alerts: Alert[] };
      }
    ).data.alerts;
  const firing = async () =>
    (await alerts()).filter((a) => a.state === 'firing').map((a) => a.labels['alertname'] ?? '');
  const scrapes = async () => {
    const body = (await (
      await fetch(
        `${prometheusUrl}/api/v1/query?query=${encodeURIComponent('count_over_time(up[1h])')}`,
      )
    ).json()) as { data: { result: { value: [number, string] }[] } };
    return Number(body.data.result[0]?.value[1] ?? 0);
  };
  /** Waits until Prometheus has scraped and evaluated a few more times. */
  const settle = async () => {
    const seen = await scrapes();
    await waitFor(async () => (await scrapes()) >= seen + 3, 20_000, 'three more scrapes');
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'prometheus-'));
    const metricsPort = await freePort();
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
    // The shipped rules, with `for:` set to 0 s: a test cannot wait out 10 minutes.
    writeFileSync(
      join(dir, 'alerts.yaml'),
      readFileSync(join(root, 'observability/prometheus/alerts.yaml'), 'utf8').replace(
        /for: \d+m/g,
        'for: 0s',
      ),
    );
    writeFileSync(
      join(dir, 'prometheus.yml'),
      `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files:\n  - ${join(dir, 'alerts.yaml')}\nscrape_configs:\n  - job_name: bridge\n    static_configs:\n      - targets: ['127.0.0.1:${metricsPort}']\n`,
    );
    const webPort = await freePort();
    prometheusUrl = `http://127.0.0.1:${webPort}`;
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${webPort}`,
      ],
      { stdio: 'ignore' },
    );
    await waitFor(
      async () => (await fetch(`${prometheusUrl}/-/ready`).catch(() => undefined))?.status === 200,
      20_000,
      'Prometheus ready',
    );
  });

  afterAll(async () => {
    prometheus?.kill('SIGTERM');
    await bridge?.stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
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
    await settle();
    await settle();
    expect(await alerts()).toEqual([]);
  });

  it('fires the doom loop alert for a doom loop storm, with the agent and model', async () => {
    await post(runs('doom-loop', '5b0c1a2e-2222-4a6b-8c7d-000000000002', 6, 2));
    await waitFor(
      async () => (await firing()).includes('AgentDoomLoopDetected'),
      20_000,
      'AgentDoomLoopDetected',
    );
    const alert = (await alerts()).find((a) => a.labels['alertname'] === 'AgentDoomLoopDetected');
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
      await settle();
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
        lastFiring = await firing();
        return expected.every((name) => lastFiring.includes(name));
      },
      20_000,
      'the failure-burst alerts',
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; firing: ${lastFiring.join(', ')}`);
    });
    expect(
      (await alerts()).find((a) => a.labels['alertname'] === 'AgentRunFailureRatioHigh')?.labels,
    ).toEqual({
      alertname: 'AgentRunFailureRatioHigh',
      severity: 'critical',
      gen_ai_agent_name: 'support-bot',
    });
    expect(
      (await alerts()).find((a) => a.labels['alertname'] === 'AgentToolErrorRatioHigh')?.labels,
    ).toEqual({
      alertname: 'AgentToolErrorRatioHigh',
      severity: 'warning',
      gen_ai_tool_name: 'get_forecast',
    });
  });

  it('runs every dashboard panel query without error, with data', async () => {
    await settle(); // series born in the last step need a second sample for rate() and increase()
    const queries = panelQueries(buildDashboard());
    expect(queries.length).toBeGreaterThanOrEqual(15);
    for (const { panel, expr } of queries) {
      const promql = expr
        .replaceAll('$__rate_interval', '1m')
        .replaceAll('$__range', '10m')
        .replace(/\$(agent|provider|model|tool)\b/g, '.*');
      const body = (await (
        await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`)
      ).json()) as { status: string; error?: string; data?: { result: unknown[] } };
      expect({ panel, status: body.status, error: body.error }).toEqual({
        panel,
        status: 'success',
        error: undefined,
      });
      expect({ panel, promql, results: (body.data?.result.length ?? 0) > 0 }).toEqual({
        panel,
        promql,
        results: true,
      });
    }
  });
});
