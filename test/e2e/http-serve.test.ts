import { request } from 'node:http';
import { connect } from 'node:net';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import type { RunningCli } from '../helpers/cli.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import type { OtlpReceiver } from '../helpers/otlp-receiver.js';
import { freePort } from '../helpers/free-port.js';
import { waitFor } from '../helpers/wire-spans.js';

const fixture = (path: string) =>
  readFileSync(fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url)), 'utf8');
const TOKEN = 'test-token-0123456789';
const run = (i: number) =>
  fixture('behest/tools-success-failure.ndjson').replaceAll(
    '5b0c1a2e-1111-4a6b-8c7d-000000000001',
    `5b0c1a2e-1111-4a6b-8c7d-${String(i).padStart(12, '0')}`,
  );

async function post(url: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}/v1/events`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-ndjson',
      authorization: `Bearer ${TOKEN}`,
      ...headers,
    },
    body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('agent-otel-bridge serve', () => {
  let receiver: OtlpReceiver;
  let cli: RunningCli;
  let url: string;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    cli = startCli(
      [
        'serve',
        '--port',
        '0',
        '--prometheus-port',
        String(await freePort()),
        '--max-body-bytes',
        '200000',
        '--max-line-bytes',
        '4096',
      ],
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        AGENT_OTEL_BRIDGE_HTTP_TOKEN: TOKEN,
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
    );
    await cli.waitForStderr(/listening on (http:\/\/\S+)\/v1\/events/);
    url = /listening on (http:\/\/\S+)\/v1\/events/.exec(cli.stderr())![1]!;
  });
  afterAll(async () => {
    await cli.stop('SIGKILL');
    await receiver.close();
  });

  it('answers with per-line results: accepted counts and each rejected line with its reason and path', async () => {
    const { status, body } = await post(url, fixture('behest/garbage.ndjson'));
    expect(status).toBe(200);
    expect(body).toMatchObject({ accepted: 3, rejected: 8, ignored: 1 });
    expect((body['problems'] as unknown[])[4]).toEqual({
      line: 6,
      outcome: 'rejected',
      reason: 'schema',
      message: 'ModelStarted.iteration: Invalid input: expected number, received string',
      path: 'ModelStarted.iteration',
    });
  });

  it('requires the bearer token', async () => {
    expect((await post(url, run(1), { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await post(url, run(1), { authorization: '' })).status).toBe(401);
  });

  it('refuses other content types, oversize bodies and oversize lines', async () => {
    expect((await post(url, run(1), { 'content-type': 'application/xml' })).status).toBe(415);
    expect((await post(url, 'x'.repeat(300_000))).status).toBe(413);
    const { body } = await post(
      url,
      `${JSON.stringify({ TextDelta: { run_id: 'r', delta: 'x'.repeat(5000), timestamp: '2025-06-01T12:00:00Z' } })}\n`,
    );
    expect(body['problems']).toEqual([
      {
        line: 1,
        outcome: 'rejected',
        reason: 'line_too_long',
        message: 'line longer than 4096 bytes',
      },
    ]);
  });

  it('decodes gzip, deflate and brotli bodies within the body limit, and refuses the rest', async () => {
    const send = async (body: Buffer, encoding: string) => {
      const response = await fetch(`${url}/v1/events`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-ndjson',
          'content-encoding': encoding,
          authorization: `Bearer ${TOKEN}`,
        },
        body,
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const lines = run(31);
    const count = lines.trim().split('\n').length;
    for (const [encoding, encode] of [
      ['gzip', gzipSync],
      ['deflate', deflateSync],
      ['br', brotliCompressSync],
    ] as const) {
      const answer = await send(
        encode(Buffer.from(lines.replaceAll('000000000031', `00000000003${encoding.length}`))),
        encoding,
      );
      expect(answer).toMatchObject({ status: 200, body: { accepted: count, rejected: 0 } });
    }
    // 2 MB of zeros in 2 KB: beyond --max-body-bytes (200 000) once decoded.
    expect((await send(gzipSync(Buffer.alloc(2_000_000)), 'gzip')).status).toBe(413);
    expect((await send(Buffer.from('not gzip at all'), 'gzip')).status).toBe(400);
    expect((await send(Buffer.from(lines), 'compress')).status).toBe(415);
  });

  it('takes a JSON array, and scopes runs without ids across requests by X-Agent-Stream', async () => {
    // The first run of the log: 18 lines, sent in two requests of 9.
    const oxi = fixture('oxi/agent-loop.ndjson').trim().split('\n').slice(0, 18);
    const array = JSON.stringify(oxi.slice(0, 9).map((l) => JSON.parse(l) as unknown));
    const first = await post(url, array, {
      'content-type': 'application/json',
      'x-agent-stream': 'session-a',
      'x-agent-dialect': 'oxi',
    });
    const second = await post(url, oxi.slice(9).join('\n'), {
      'x-agent-stream': 'session-a',
      'x-agent-dialect': 'oxi',
    });
    expect([first.body['accepted'], second.body['accepted']]).toEqual([9, 9]);
    const isFirstRun = (s: (typeof receiver.spans)[number]) =>
      s.name === 'invoke_agent' && s.attributes['gen_ai.conversation.id'] === 'sess-1';
    await waitFor(() => receiver.spans.some(isFirstRun), 5000, 'the oxi run');
    const runSpan = receiver.spans.find(isFirstRun);
    // One run across both requests, named after its content: the same id as the file gives.
    expect(receiver.spans.filter(isFirstRun)).toHaveLength(1);
    expect(String(runSpan?.attributes['agent.run.id']).replaceAll('-', '')).toBe(runSpan?.traceId);
    expect(runSpan?.attributes['agent.run.outcome']).toBe('completed');
    expect(
      receiver.spans.filter(
        (s) => s.traceId === runSpan?.traceId && s.name.startsWith('execute_tool'),
      ),
    ).toHaveLength(1);
  });

  it('serves many clients at once', async () => {
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) => post(url, run(100 + i))),
    );
    expect(results.every((r) => r.status === 200 && r.body['accepted'] === 23)).toBe(true);
    await waitFor(
      () =>
        receiver.spans.filter((s) =>
          String(s.attributes['agent.run.id']).startsWith('5b0c1a2e-1111-4a6b-8c7d-0000000001'),
        ).length === 24,
      5000,
      '24 runs',
    );
  });

  it('exposes its metrics for Prometheus', async () => {
    const port = /Prometheus metrics on http:\/\/[^:]+:(\d+)/.exec(cli.stderr())?.[1];
    expect(port).toBeDefined();
    // The events endpoint's token guards the scrape endpoint too.
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(401);
    const text = await (
      await fetch(`http://127.0.0.1:${port}/metrics`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      })
    ).text();
    expect(text).toMatch(/^agent_runs_total\{[^}]*agent_run_outcome="completed"[^}]*\} \d+/m);
    expect(text).toMatch(/^agent_bridge_events_total\{[^}]*agent_bridge_event_outcome="rejected"/m);
    // The oversize bodies answered 413 above (one plain, one once decoded) are counted.
    expect(text).toMatch(
      /^agent_bridge_limits_hit_total\{[^}]*agent_bridge_limit="body_size"[^}]*\} 2$/m,
    );
  });

  it('answers health and readiness', async () => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${url}/readyz`)).json()).toEqual({ status: 'ready' });
    expect((await fetch(`${url}/v1/events`)).status).toBe(405);
    expect((await fetch(`${url}/nope`)).status).toBe(404);
  });

  it('closes a connection whose headers never end after the documented 10 s, not later', async () => {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    const opened = Date.now();
    socket.write('POST /v1/events HTTP/1.1\r\nHost: x\r\n');
    const answer = await new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (c: Buffer) => (text += c.toString()));
      socket.on('close', () => resolve(text));
    });
    const took = Date.now() - opened;
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    // Node checks once a second here; before, once in 30 s (a 10 s timeout took up to 40 s).
    expect(took).toBeGreaterThanOrEqual(9_500);
    expect(took).toBeLessThan(15_000);
  }, 30_000);
});

describe('serve shutdown and safety', () => {
  it('finishes a request in flight on SIGTERM, exports it and exits 0', async () => {
    const receiver = await startOtlpReceiver();
    const cli = startCli(['serve', '--port', '0'], { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    try {
      await cli.waitForStderr(/listening on/);
      const url = new URL(/listening on (http:\/\/\S+)\/v1\/events/.exec(cli.stderr())![1]!);
      const lines = run(7).trim().split('\n');
      const response = new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: '/v1/events',
            method: 'POST',
            headers: { 'content-type': 'application/x-ndjson' },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.write(`${lines.slice(0, 5).join('\n')}\n`);
        setTimeout(() => {
          void cli.stop('SIGTERM');
          setTimeout(() => req.end(`${lines.slice(5).join('\n')}\n`), 300);
        }, 200);
      });
      expect(await response).toBe(200);
      const result = await cli.exited;
      expect(result.code).toBe(0);
      expect(
        receiver.spans.find(
          (s) => s.attributes['agent.run.id'] === '5b0c1a2e-1111-4a6b-8c7d-000000000007',
        )?.attributes['agent.run.outcome'],
      ).toBe('completed');
    } finally {
      await cli.stop('SIGKILL');
      await receiver.close();
    }
  });

  it('refuses to listen beyond loopback without a token', async () => {
    const result = await runCli(['serve', '--host', '0.0.0.0', '--port', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('refusing to listen on 0.0.0.0 without a token');
  });
});

describe('serve over TLS', () => {
  it('serves HTTPS with the given certificate and key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tls-'));
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    const made = spawnSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { encoding: 'utf8' },
    );
    expect(made.status).toBe(0);
    const cli = startCli(['serve', '--port', '0', '--tls-cert', cert, '--tls-key', key], {
      OTEL_TRACES_EXPORTER: 'none',
      OTEL_METRICS_EXPORTER: 'none',
    });
    try {
      await cli.waitForStderr(/listening on https:\/\/127\.0\.0\.1:(\d+)/);
      const port = Number(/listening on https:\/\/127\.0\.0\.1:(\d+)/.exec(cli.stderr())![1]);
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpsRequest(
          { host: '127.0.0.1', port, path: '/healthz', ca: readFileSync(cert) },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(200);
      expect(cli.stderr()).toContain('TLS on');
    } finally {
      await cli.stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('needs both the certificate and the key', async () => {
    const result = await runCli(['serve', '--tls-cert', '/nonexistent.pem']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('agent-otel-bridge: --tls-cert and --tls-key go together\n');
  });
});

describe('serve request rate', () => {
  it('answers 429 with Retry-After beyond the per-client rate, counts it and recovers', async () => {
    const receiver = await startOtlpReceiver();
    const prometheusPort = await freePort();
    const cli = startCli(
      [
        'serve',
        '--port',
        '0',
        '--max-requests-per-second',
        '5',
        '--prometheus-port',
        String(prometheusPort),
      ],
      { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
    );
    try {
      await cli.waitForStderr(/listening on (http:\/\/\S+)\/v1\/events/);
      const url = /listening on (http:\/\/\S+)\/v1\/events/.exec(cli.stderr())![1]!;
      const one = async () => {
        const response = await fetch(`${url}/v1/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-ndjson' },
          body: run(900).split('\n')[0]!,
        });
        await response.arrayBuffer();
        return { status: response.status, retryAfter: response.headers.get('retry-after') };
      };
      // 20 at once: a burst of twice the rate goes through (a little more: tokens refill as it
      // runs, 5 a second; all 20 would take 2 s), the rest are refused.
      const burst = await Promise.all(Array.from({ length: 20 }, one));
      const accepted = burst.filter((r) => r.status === 200).length;
      expect(accepted).toBeGreaterThanOrEqual(10);
      expect(accepted).toBeLessThan(20);
      const limited = burst.filter((r) => r.status === 429);
      expect(limited.every((r) => r.retryAfter === '1')).toBe(true);
      // Health checks are not rate limited.
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1100));
      expect((await one()).status).toBe(200);
      const text = await (await fetch(`http://127.0.0.1:${prometheusPort}/metrics`)).text();
      const hits =
        /^agent_bridge_limits_hit_total\{[^}]*agent_bridge_limit="request_rate"[^}]*\} (\d+)/m.exec(
          text,
        );
      expect(Number(hits?.[1])).toBe(limited.length);
      expect(cli.stderr().match(/requests per second/g)).toHaveLength(1);
    } finally {
      await cli.stop('SIGKILL');
      await receiver.close();
    }
  });
});
