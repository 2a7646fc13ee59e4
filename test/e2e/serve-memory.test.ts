// serve bounds memory per process, not per request: request bodies held at once are capped
// (AGENT_OTEL_BRIDGE_MAX_IN_FLIGHT_BYTES, 64 MiB; beyond it 503 with Retry-After), a JSON-array
// body is depth-checked before it is parsed, and a line that is not UTF-8 is rejected on its own.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { behest, RUN_A } from '../helpers/behest-lines.js';
import { startCli } from '../helpers/cli.js';
import type { RunningCli } from '../helpers/cli.js';

/** The stated bound for 100 concurrent maximum-size requests (docs/reliability.md). */
const RSS_BOUND_MIB = 400;
const MAX_BODY = 10 * 1024 * 1024;

function residentMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
}

/** POSTs a body with node:http (a refused upload may be cut short: that is an answer too). */
function post(url: string, body: Buffer | string, type = 'application/x-ndjson') {
  return new Promise<{ status: number; body: string }>((resolve) => {
    const req = request(
      `${url}/v1/events`,
      {
        method: 'POST',
        headers: { 'content-type': type, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.end(body);
  });
}

describe('serve memory and input bounds', () => {
  let cli: RunningCli;
  let url: string;
  beforeAll(async () => {
    cli = startCli(['serve', '--port', '0'], {
      OTEL_TRACES_EXPORTER: 'none',
      OTEL_METRICS_EXPORTER: 'none',
    });
    await cli.waitForStderr(/listening on (http:\/\/\S+)\/v1\/events/);
    url = /listening on (http:\/\/\S+)\/v1\/events/.exec(cli.stderr())![1]!;
  });
  afterAll(async () => {
    await cli.stop('SIGKILL');
  });

  it(`holds 100 concurrent ${MAX_BODY / 1024 / 1024} MiB requests under ${RSS_BOUND_MIB} MiB`, async () => {
    const body = Buffer.alloc(MAX_BODY - 1, 'x');
    let peak = residentMiB(cli.pid);
    const sampler = setInterval(() => (peak = Math.max(peak, residentMiB(cli.pid))), 20);
    const results = await Promise.all(Array.from({ length: 100 }, () => post(url, body)));
    clearInterval(sampler);
    peak = Math.max(peak, residentMiB(cli.pid));
    const statuses = results.map((r) => r.status);
    // Some were taken (each a single over-long line, rejected), the rest refused for now.
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 200 || s === 503 || s === 0)).toBe(true);
    expect(peak).toBeLessThan(RSS_BOUND_MIB);
    // Everything held was given back: a request goes through afterwards.
    expect((await post(url, behest('RunStarted', RUN_A, '00', {}))).status).toBe(200);
  }, 120_000);

  it('refuses a deeply nested JSON array before parsing it', async () => {
    const deep = `[${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}]`;
    const started = performance.now();
    const result = await post(url, deep, 'application/json');
    expect(result.status).toBe(400);
    expect(result.body).toContain('nested deeper than 64 levels');
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('rejects a line that is not UTF-8 and reads the others, as ingest does', async () => {
    const good = behest('RunStarted', '0190f3a2-7c4e-4b8a-9d2e-5f6a7b8c9d99', '00', {});
    const body = Buffer.concat([
      Buffer.from(`${good}\n`),
      Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]),
    ]);
    const result = await post(url, body);
    expect(result.status).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({
      accepted: 1,
      rejected: 1,
      problems: [{ line: 2, outcome: 'rejected', reason: 'invalid_utf8' }],
    });
  });
});
