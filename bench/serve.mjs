// `serve` end to end: behest events POSTed in requests of 500 lines, 4 requests at a time over
// keep-alive connections, to `agent-otel-bridge serve [--workers N]` exporting to a loopback
// OTLP/HTTP receiver that discards. The clock runs from the first request until the process has
// exported everything and exited after SIGTERM (process start excluded). The load generator and
// the receiver share the machine's cores with the server.
// Usage: node bench/serve.mjs [events] [workers…]
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { behestLines } from './ingest.mjs';
import { startDiscardingReceiver } from './receiver.mjs';
import { median } from './workload.mjs';

const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const reportUsage = fileURLToPath(new URL('./report-rss.mjs', import.meta.url));
const LINES_PER_REQUEST = 500;
const CONCURRENT = 4;

function post(agent, port, body) {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: '127.0.0.1',
        port,
        path: '/v1/events',
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson', 'content-length': body.length },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function serveOnce(bodies, events, workers, endpoint) {
  const child = spawn(
    process.execPath,
    ['--import', reportUsage, cli, 'serve', '--port', '0', '--workers', String(workers)],
    {
      env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  const port = await new Promise((resolve, reject) => {
    child.stderr.on('data', (c) => {
      stderr += c;
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(stderr);
      if (m) resolve(Number(m[1]));
    });
    child.on('close', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENT });
  const started = process.hrtime.bigint();
  let next = 0;
  let accepted = 0;
  const client = async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      for (;;) {
        const r = await post(agent, port, body);
        if (r.status === 200) {
          accepted += JSON.parse(r.text).accepted;
          break;
        }
        if (r.status !== 503 && r.status !== 429)
          throw new Error(`serve answered ${r.status}: ${r.text}`);
        await new Promise((res) => setTimeout(res, 100));
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENT }, client));
  const closed = new Promise((resolve) => child.on('close', resolve));
  child.kill('SIGTERM');
  const code = await closed;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  if (code !== 0) throw new Error(`serve exited ${code}: ${stderr}`);
  if (accepted !== events) throw new Error(`serve accepted ${accepted} of ${events} events`);
  const cpu = /bench:cpuMicros=(\d+)/.exec(stderr);
  return { seconds, cpuSeconds: cpu ? Number(cpu[1]) / 1e6 : NaN };
}

/** Events/s and CPU-µs per event (the whole process) of `serve` with each worker count (medians of `repeats`). */
export async function serveBench({ events = 100_000, workers = [1, 2], repeats = 3 } = {}) {
  const lines = behestLines(events);
  const bodies = [];
  for (let i = 0; i < lines.length; i += LINES_PER_REQUEST)
    bodies.push(Buffer.from(lines.slice(i, i + LINES_PER_REQUEST).join('\n')));
  const receiver = await startDiscardingReceiver();
  try {
    const perWorkers = {};
    const cpuPerWorkers = {};
    for (const n of workers) {
      const runs = [];
      for (let i = 0; i < repeats; i += 1)
        runs.push(await serveOnce(bodies, lines.length, n, receiver.endpoint));
      perWorkers[n] = lines.length / median(runs.map((r) => r.seconds));
      cpuPerWorkers[n] = (1e6 * median(runs.map((r) => r.cpuSeconds))) / lines.length;
    }
    return { events: lines.length, eventsPerSecond: perWorkers, cpuMicrosPerEvent: cpuPerWorkers };
  } finally {
    await receiver.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const workers = process.argv.slice(3).map(Number);
  const r = await serveBench({
    events: Number(process.argv[2] ?? 100_000),
    ...(workers.length > 0 ? { workers } : {}),
  });
  for (const [n, rate] of Object.entries(r.eventsPerSecond))
    console.log(
      `serve --workers ${n}: ${Math.round(rate)} events/s, ${r.cpuMicrosPerEvent[n].toFixed(2)} CPU-µs/event (${r.events} events)`,
    );
}
