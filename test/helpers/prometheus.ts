// A real Prometheus (Debian's 2.42) for tests: scrapes the given targets every second and
// evaluates the shipped alert rules every second, their `for:` set to 0 s (a test cannot wait out
// 10 minutes).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.js';
import { waitFor } from './wire-spans.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface Alert {
  labels: Record<string, string>;
  state: string;
}

export interface TestPrometheus {
  readonly url: string;
  /** An instant query's samples (labels and value). */
  query(promql: string): Promise<{ metric: Record<string, string>; value: number }[]>;
  alerts(): Promise<Alert[]>;
  firing(): Promise<string[]>;
  /** Waits until Prometheus has scraped and evaluated a few more times. */
  settle(): Promise<void>;
  stop(): void;
}

export async function startPrometheus(
  targets: readonly string[],
  /** Sent as `Authorization: Bearer <token>` with every scrape. */
  bearerToken?: string,
): Promise<TestPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'prometheus-'));
  writeFileSync(
    join(dir, 'alerts.yaml'),
    readFileSync(join(root, 'observability/prometheus/alerts.yaml'), 'utf8').replace(
      /for: \d+m/g,
      'for: 0s',
    ),
  );
  writeFileSync(
    join(dir, 'prometheus.yml'),
    `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files:\n  - ${join(dir, 'alerts.yaml')}\nscrape_configs:\n  - job_name: bridge\n    honor_labels: true\n${bearerToken === undefined ? '' : `    authorization:\n      credentials: '${bearerToken}'\n`}    static_configs:\n      - targets: [${targets.map((t) => `'${t}'`).join(', ')}]\n`,
  );
  const webPort = await freePort();
  const url = `http://127.0.0.1:${webPort}`;
  const child = spawn(
    'prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${webPort}`,
    ],
    { stdio: 'ignore' },
  );
  await waitFor(
    async () => (await fetch(`${url}/-/ready`).catch(() => undefined))?.status === 200,
    20_000,
    'Prometheus ready',
  );
  const query = async (promql: string) => {
    const body = (await (
      await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`)
    ).json()) as {
      status: string;
      error?: string;
      data?: { result: { metric: Record<string, string>; value: [number, string] }[] };
    };
    if (body.status !== 'success') throw new Error(`${promql}: ${body.error ?? body.status}`);
    return (body.data?.result ?? []).map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
  };
  const alerts = async (): Promise<Alert[]> =>
    ((await (await fetch(`${url}/api/v1/alerts`)).json()) as { data: { alerts: Alert[] } }).data
      .alerts;
  const scrapes = async () => (await query('count_over_time(up[1h])'))[0]?.value ?? 0;
  return {
    url,
    query,
    alerts,
    firing: async () =>
      (await alerts()).filter((a) => a.state === 'firing').map((a) => a.labels['alertname'] ?? ''),
    async settle() {
      const seen = await scrapes();
      await waitFor(async () => (await scrapes()) >= seen + 3, 20_000, 'three more scrapes');
    },
    stop() {
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
