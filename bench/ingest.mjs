// NDJSON ingest end to end: `agent-otel-bridge ingest` of a generated behest log to a loopback
// OTLP/HTTP receiver that accepts and discards, vs JSON.parse alone over the same file (its
// baseline). Wall time includes process start. Usage: node bench/ingest.mjs [events] [repeats]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLineDecoder } from '../dist/dialects/detect.js';
import { partitionOfEvent } from '../dist/partitions/partition-of.js';
import { createDemoLines } from '../dist/sources/demo-runs.js';
import { startDiscardingReceiver } from './receiver.mjs';
import { median } from './workload.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Behest lines of realistic demo runs, at least `count` of them. */
export function behestLines(count) {
  const lines = [];
  for (let batch = 0; lines.length < count; batch += 1)
    lines.push(...createDemoLines(60, Date.UTC(2025, 5, 1, 12) + batch * 600_000));
  return lines;
}

/**
 * Runs the CLI on `args` with OTLP to `endpoint`; resolves with wall seconds, peak RSS and the CPU
 * seconds the process used (all its threads).
 */
export function runCli(args, endpoint, nodeOptions = [], extraEnv = {}) {
  return runNode(join(root, 'dist/cli/main.js'), args, nodeOptions, {
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    ...extraEnv,
  });
}

/** Runs `script` with `args` in a Node process of its own; resolves as `runCli` does. */
function runNode(script, args, nodeOptions = [], extraEnv = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(
      process.execPath,
      [...nodeOptions, '--import', join(root, 'bench/report-rss.mjs'), script, ...args],
      { env: { ...process.env, ...extraEnv }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const rss = /bench:maxRSS=(\d+)/.exec(stderr);
      const cpu = /bench:cpuMicros=(\d+)/.exec(stderr);
      if (code !== 0) reject(new Error(`${script} ${args[0]} exited ${code}: ${stderr}`));
      else
        resolve({
          seconds,
          maxRssMiB: rss ? Number(rss[1]) / 1024 : NaN,
          cpuSeconds: cpu ? Number(cpu[1]) / 1e6 : NaN,
        });
    });
  });
}

export async function ingestBench({ events = 100_000, repeats = 3 } = {}) {
  const lines = behestLines(events);
  const dir = mkdtempSync(join(tmpdir(), 'aob-bench-'));
  const file = join(dir, 'events.ndjson');
  writeFileSync(file, `${lines.join('\n')}\n`);
  const receiver = await startDiscardingReceiver();
  try {
    const runs = [];
    for (let i = 0; i < repeats; i += 1)
      runs.push(await runCli(['ingest', '--quiet', file], receiver.endpoint));
    const parses = [];
    for (let i = 0; i < repeats; i += 1) {
      const started = process.hrtime.bigint();
      const text = readFileSync(file, 'utf8');
      let count = 0;
      for (const line of text.split('\n')) if (line !== '') count += JSON.parse(line) ? 1 : 0;
      if (count !== lines.length) throw new Error(`parsed ${count} of ${lines.length} lines`);
      parses.push(Number(process.hrtime.bigint() - started) / 1e9);
    }
    // Where the time goes: the same file with export switched off (read, parse, validate, map),
    // and parsing and validating alone, in process.
    const mapOnly = [];
    for (let i = 0; i < repeats; i += 1) {
      mapOnly.push(
        await runCli(['ingest', '--quiet', file], receiver.endpoint, [], {
          OTEL_TRACES_EXPORTER: 'none',
          OTEL_METRICS_EXPORTER: 'none',
        }),
      );
    }
    // The same ingest on 2 and 4 worker threads (each run on one).
    const workerRuns = {};
    const workerCpu = {};
    for (const workers of [2, 4]) {
      const timed = [];
      for (let i = 0; i < repeats; i += 1)
        timed.push(
          await runCli(
            ['ingest', '--quiet', '--workers', String(workers), file],
            receiver.endpoint,
          ),
        );
      workerRuns[workers] = lines.length / median(timed.map((r) => r.seconds));
      workerCpu[workers] = (1e6 * median(timed.map((r) => r.cpuSeconds))) / lines.length;
    }
    // What a second worker costs before its first line: the same ingest of a few lines on one
    // worker and on two (a thread started, the bundle loaded, a sink and exporter of its own).
    const tiny = join(dir, 'tiny.ndjson');
    writeFileSync(tiny, `${lines.slice(0, 30).join('\n')}\n`);
    const startRuns = { 1: [], 2: [] };
    for (let i = 0; i < repeats; i += 1)
      for (const workers of [1, 2])
        startRuns[workers].push(
          await runCli(
            ['ingest', '--quiet', '--workers', String(workers), tiny],
            receiver.endpoint,
          ),
        );
    const workerStart = {
      seconds:
        median(startRuns[2].map((r) => r.seconds)) - median(startRuns[1].map((r) => r.seconds)),
      cpuSeconds:
        median(startRuns[2].map((r) => r.cpuSeconds)) -
        median(startRuns[1].map((r) => r.cpuSeconds)),
    };
    // What this machine gives two processes that share nothing for the same work: the file split
    // by run as `--workers 2` splits it, each half ingested by a one-worker process, both at once.
    // Each pays a start and a warm-up of its own, as each worker thread does.
    const halves = [0, 1].map((k) => {
      const half = join(dir, `half-${k}.ndjson`);
      writeFileSync(half, `${lines.filter((l) => partitionOfEvent(l, 2) === k).join('\n')}\n`);
      return half;
    });
    const pairs = [];
    for (let i = 0; i < repeats; i += 1)
      pairs.push(
        await Promise.all(
          halves.map((half) => runCli(['ingest', '--quiet', half], receiver.endpoint)),
        ),
      );
    // The machine's own figure for the same split: `JSON.parse` of the whole file in one process,
    // and of its halves in two at once, each process's start included. Two isolates that parse
    // compete for the cores' caches and for their collectors' threads.
    const parseFile = join(root, 'bench/parse-file.mjs');
    const parseAlone = [];
    const parsePairs = [];
    for (let i = 0; i < repeats; i += 1) {
      parseAlone.push(await runNode(parseFile, [file]));
      parsePairs.push(await Promise.all(halves.map((half) => runNode(parseFile, [half]))));
    }
    const decodes = [];
    for (let i = 0; i < repeats; i += 1) {
      const decoder = createLineDecoder('behest', { scope: 'bench', arrival: () => [0, 0] });
      const started = process.hrtime.bigint();
      for (const line of lines) decoder.decodeLine(line);
      decodes.push(Number(process.hrtime.bigint() - started) / 1e9);
    }
    return {
      events: lines.length,
      mapOnlyEventsPerSecond: lines.length / median(mapOnly.map((r) => r.seconds)),
      decodeEventsPerSecond: lines.length / median(decodes),
      fileMiB: readFileSync(file).length / 1048576,
      eventsPerSecond: lines.length / median(runs.map((r) => r.seconds)),
      workerEventsPerSecond: workerRuns,
      /** CPU-µs per event of the whole process (start included), one worker and 2 and 4. */
      cpuMicrosPerEvent: (1e6 * median(runs.map((r) => r.cpuSeconds))) / lines.length,
      workerCpuMicrosPerEvent: workerCpu,
      /** The file's halves in two one-worker processes at once: events/s, CPU-µs per event. */
      pairEventsPerSecond:
        lines.length / median(pairs.map((p) => Math.max(p[0].seconds, p[1].seconds))),
      pairCpuMicrosPerEvent:
        (1e6 * median(pairs.map((p) => p[0].cpuSeconds + p[1].cpuSeconds))) / lines.length,
      parseEventsPerSecond: lines.length / median(parses),
      /** `JSON.parse` of the file in a process of its own, and of its halves in two at once. */
      parseProcess: {
        eventsPerSecond: lines.length / median(parseAlone.map((r) => r.seconds)),
        cpuMicrosPerEvent: (1e6 * median(parseAlone.map((r) => r.cpuSeconds))) / lines.length,
        pairEventsPerSecond:
          lines.length / median(parsePairs.map((p) => Math.max(p[0].seconds, p[1].seconds))),
        pairCpuMicrosPerEvent:
          (1e6 * median(parsePairs.map((p) => p[0].cpuSeconds + p[1].cpuSeconds))) / lines.length,
      },
      /** What `--workers 2` adds to one worker on a 30-line file: wall and CPU seconds. */
      workerStart,
      maxRssMiB: median(runs.map((r) => r.maxRssMiB)),
      otlpMiB: receiver.bytes / repeats / 1048576,
    };
  } finally {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await ingestBench({
    events: Number(process.argv[2] ?? 100_000),
    repeats: Number(process.argv[3] ?? 3),
  });
  console.log(
    `${r.events} events (${r.fileMiB.toFixed(1)} MiB): ingest ${Math.round(r.eventsPerSecond)} events/s (${r.cpuMicrosPerEvent.toFixed(2)} CPU-µs/event; --workers 2: ${Math.round(r.workerEventsPerSecond[2])} events/s, ${r.workerCpuMicrosPerEvent[2].toFixed(2)} CPU-µs/event; --workers 4: ${Math.round(r.workerEventsPerSecond[4])}, ${r.workerCpuMicrosPerEvent[4].toFixed(2)}; its halves in two processes at once: ${Math.round(r.pairEventsPerSecond)}, ${r.pairCpuMicrosPerEvent.toFixed(2)}), JSON.parse alone ${Math.round(r.parseEventsPerSecond)} events/s, peak RSS ${r.maxRssMiB.toFixed(0)} MiB, ${r.otlpMiB.toFixed(1)} MiB of OTLP`,
  );
}
