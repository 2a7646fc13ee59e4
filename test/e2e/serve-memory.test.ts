// serve bounds memory per process, not per request: request bodies held at once are capped
// (AGENT_OTEL_BRIDGE_MAX_IN_FLIGHT_BYTES, 64 MiB; beyond it 503 with Retry-After), a JSON-array
// body is depth-checked before it is parsed, and a line that is not UTF-8 is rejected on its own.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
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
    // Valid events (each decoded and applied), not one over-long line: what a real client sends.
    const lines: string[] = [];
    for (let size = 0, i = 0; size < MAX_BODY * 0.95; i += 1) {
      const line = behest(
        'TextDelta',
        `0190f3a2-7c4e-4b8a-9d2e-${String(i % 1000).padStart(12, '0')}`,
        `${String(i % 60).padStart(2, '0')}.${String(i % 1000).padStart(3, '0')}`,
        { delta: 'hello world '.repeat(8) },
      );
      lines.push(line);
      size += line.length + 1;
    }
    const body = Buffer.from(lines.join('\n'));
    let peak = residentMiB(cli.pid);
    const sampler = setInterval(() => (peak = Math.max(peak, residentMiB(cli.pid))), 20);
    const results = await Promise.all(Array.from({ length: 100 }, () => post(url, body)));
    clearInterval(sampler);
    peak = Math.max(peak, residentMiB(cli.pid));
    const statuses = results.map((r) => r.status);
    // Some were taken, the rest refused for now (or cut short while uploading).
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 200 || s === 503 || s === 0)).toBe(true);
    console.log(
      `peak RSS with 100 concurrent ${MAX_BODY / 1024 / 1024} MiB bodies: ${peak.toFixed(0)} MiB`,
    );
    expect(peak).toBeLessThan(RSS_BOUND_MIB);
    // Everything held was given back: a request goes through afterwards.
    expect((await post(url, behest('RunStarted', RUN_A, '00', {}))).status).toBe(200);
  }, 120_000);

  it('is not starved by idle connections that declare big bodies, and closes them', async () => {
    // 20 connections declare 9.5 MiB bodies (190 MiB, three times the in-flight budget) and send
    // a few bytes, then nothing.
    const target = new URL(url);
    const idle = await Promise.all(
      Array.from(
        { length: 20 },
        () =>
          new Promise<{ socket: Socket; answer: Promise<string> }>((resolve) => {
            const socket = connect(Number(target.port), target.hostname, () => {
              socket.write(
                `POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\nContent-Length: ${9.5 * 1024 * 1024}\r\n\r\n{"Run`,
              );
              let text = '';
              const answer = new Promise<string>((done) => {
                socket.on('data', (c: Buffer) => (text += c.toString()));
                socket.on('close', () => done(text));
              });
              resolve({ socket, answer });
            });
          }),
      ),
    );
    // Another client is answered while they all still hold their connections open (they are
    // closed only after 10 s without a byte): it did not wait for them.
    let closed = 0;
    for (const c of idle) void c.answer.then(() => (closed += 1));
    expect((await post(url, behest('RunStarted', RUN_A, '01', {}))).status).toBe(200);
    expect(closed).toBe(0);
    // The idle ones are answered 408 and closed after 10 s without a byte.
    const answers = await Promise.all(idle.map((c) => c.answer));
    expect(answers.every((a) => a.startsWith('HTTP/1.1 408'))).toBe(true);
  }, 60_000);

  it('refuses a deeply nested JSON array before parsing it', async () => {
    const deep = `[${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}]`;
    const result = await post(url, deep, 'application/json');
    // The depth check's own answer, which comes before any parse: a parse would have failed
    // another way (or built the 1 000 000 levels).
    expect(result.status).toBe(400);
    expect(result.body).toContain('nested deeper than 64 levels');
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
