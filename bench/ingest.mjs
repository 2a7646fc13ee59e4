// Ingest throughput: `agent-otel-bridge ingest` of a generated behest log (≥ 100 000 events) to a
// loopback OTLP/HTTP receiver that accepts and discards, vs JSON.parse alone over the same file.
// Usage: node bench/ingest.mjs [events] [repeats]   (after `npm run build`)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDemoLines } from '../dist/sources/demo-runs.js';

const targetEvents = Number(process.argv[2] ?? 100_000);
const repeats = Number(process.argv[3] ?? 3);
const root = fileURLToPath(new URL('..', import.meta.url));

const lines = [];
for (let batch = 0; lines.length < targetEvents; batch += 1)
  lines.push(...createDemoLines(60, Date.UTC(2025, 5, 1, 12) + batch * 600_000));
const dir = mkdtempSync(join(tmpdir(), 'aob-bench-'));
const file = join(dir, 'events.ndjson');
writeFileSync(file, `${lines.join('\n')}\n`);
const bytes = readFileSync(file).length;

const received = { requests: 0, bytes: 0 };
const server = createServer((req, res) => {
  req.on('data', (c) => (received.bytes += c.length));
  req.on('end', () => {
    received.requests += 1;
    res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const endpoint = `http://127.0.0.1:${server.address().port}`;

function runIngest() {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(
      process.execPath,
      [
        '--import',
        join(root, 'bench/report-rss.mjs'),
        join(root, 'dist/cli/main.js'),
        'ingest',
        '--quiet',
        file,
      ],
      {
        env: {
          ...process.env,
          OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const rss = /bench:maxRSS=(\d+)/.exec(stderr);
      if (code !== 0) reject(new Error(`ingest exited ${code}: ${stderr}`));
      else resolve({ seconds, maxRssKiB: rss ? Number(rss[1]) : NaN });
    });
  });
}

function parseOnly() {
  const started = process.hrtime.bigint();
  const text = readFileSync(file, 'utf8');
  let count = 0;
  for (const line of text.split('\n')) if (line !== '') count += JSON.parse(line) ? 1 : 0;
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, count };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const runs = [];
for (let i = 0; i < repeats; i += 1) runs.push(await runIngest());
const parses = Array.from({ length: repeats }, parseOnly);
server.close();
rmSync(dir, { recursive: true, force: true });

const ingestSeconds = median(runs.map((r) => r.seconds));
const parseSeconds = median(parses.map((p) => p.seconds));
const rows = [
  ['events', lines.length.toLocaleString('en-US')],
  ['file size', `${(bytes / 1048576).toFixed(1)} MiB`],
  ['ingest end to end (median wall, incl. process start)', `${ingestSeconds.toFixed(2)} s`],
  ['ingest events/s', Math.round(lines.length / ingestSeconds).toLocaleString('en-US')],
  ['JSON.parse alone events/s', Math.round(lines.length / parseSeconds).toLocaleString('en-US')],
  ['ratio ingest / JSON.parse', `${(ingestSeconds / parseSeconds).toFixed(1)}×`],
  ['peak RSS of ingest', `${(median(runs.map((r) => r.maxRssKiB)) / 1024).toFixed(0)} MiB`],
  [
    'OTLP requests / bytes received per run',
    `${Math.round(received.requests / repeats)} / ${(received.bytes / repeats / 1048576).toFixed(1)} MiB`,
  ],
];
console.log(`node ${process.version}, ${repeats} runs`);
for (const [k, v] of rows) console.log(`${k.padEnd(54)} ${v}`);
