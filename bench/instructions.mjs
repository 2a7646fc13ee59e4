// Instructions, not time: `handleJson` of behest lines into no-op providers, run under valgrind's
// cachegrind, which counts every instruction the process executes. On a machine whose CPU times
// vary by 5-10 % from run to run, counts of one build mostly agree to within 1-2 % (an occasional
// run is further off; the median of three is reported), so a change worth a few per cent shows
// here where time cannot tell it from noise. The count includes starting Node and generating the
// lines (about 1.7 G of the 6): compare builds, not absolute figures.
// Usage: node bench/instructions.mjs [built dist directory …] (default: this checkout's dist)
// Needs valgrind on PATH; each build is run 3 times, 2 at once (about a minute per build).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from './workload.mjs';

const LINES = 30_000;
const REPEATS = 3;
const RUNS = 3;

/** Runs in the process valgrind watches: every line through one sink, `REPEATS` times. */
async function workload(index) {
  const { createNoopMeter, trace } = await import('@opentelemetry/api');
  const { behestLines } = await import('./ingest.mjs');
  const { createAgentOtelSink } = await import(index);
  const lines = behestLines(LINES);
  const tracer = trace.getTracerProvider().getTracer('bench');
  for (let r = 0; r < REPEATS; r += 1) {
    const sink = createAgentOtelSink({
      tracerProvider: { getTracer: () => tracer },
      meterProvider: { getMeter: () => createNoopMeter() },
      env: {},
      countWindowsInEvents: true,
    });
    for (const line of lines) sink.handleJson(line, 'behest');
    await sink.shutdown();
  }
}

function count(index) {
  return new Promise((done, fail) => {
    const child = spawn(
      'valgrind',
      [
        '--tool=cachegrind',
        '--cache-sim=no',
        '--smc-check=all-non-file',
        '--cachegrind-out-file=/dev/null',
        process.execPath,
        '--single-threaded',
        fileURLToPath(import.meta.url),
        '--workload',
        index,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => {
      const refs = /I\s+refs:\s+([\d,]+)/.exec(stderr);
      if (code !== 0 || refs === null) fail(new Error(`valgrind exited ${code}: ${stderr}`));
      else done(Number(refs[1].replaceAll(',', '')));
    });
  });
}

if (process.argv[2] === '--workload') {
  await workload(process.argv[3]);
} else if (import.meta.url === `file://${process.argv[1]}`) {
  if (spawnSync('valgrind', ['--version']).status !== 0) {
    console.log('valgrind is not installed: nothing measured');
    process.exit(0);
  }
  const dists = process.argv.length > 2 ? process.argv.slice(2) : ['dist'];
  for (const dist of dists) {
    const index = pathToFileURL(resolve(dist, 'index.js')).href;
    if (!existsSync(new URL(index))) throw new Error(`${dist} has no index.js: build it first`);
    const counts = [];
    while (counts.length < RUNS) counts.push(...(await Promise.all([count(index), count(index)])));
    const sorted = counts.slice(0, RUNS).sort((a, b) => a - b);
    console.log(
      `${dist}: ${(median(sorted) / 1e9).toFixed(3)} G instructions (${LINES} lines × ${REPEATS}; runs ${sorted.map((c) => (c / 1e9).toFixed(3)).join(', ')})`,
    );
  }
}
