// Content capture's cost: the demo's behest lines (text deltas, tool arguments and results, errors)
// through handleJson with capture off and on, in process, to providers that drop what they get.
// Capture on scrubs every captured value through every layer (docs/reliability.md).
import { performance } from 'node:perf_hooks';
import { createAgentOtelSink } from '../dist/index.js';
import { createDemoLines } from '../dist/sources/demo-runs.js';
import { benchProviders } from './providers.mjs';

function linesPerSecond(lines, captureContent, repeats) {
  let best = 0;
  for (let r = 0; r < repeats; r += 1) {
    const { tracerProvider, meterProvider } = benchProviders();
    // Held by their count, as `ingest` holds them: a window in time would never pass here.
    const sink = createAgentOtelSink({
      captureContent,
      tracerProvider,
      meterProvider,
      countWindowsInEvents: true,
    });
    const started = performance.now();
    for (const line of lines) sink.handleJson(line, 'behest');
    sink.endOpenRuns();
    best = Math.max(best, lines.length / ((performance.now() - started) / 1000));
    void sink.shutdown();
  }
  return best;
}

export async function captureBench({ runs = 3000, repeats = 5 } = {}) {
  const lines = createDemoLines(runs, Date.UTC(2025, 5, 1, 12));
  return {
    lines: lines.length,
    off: linesPerSecond(lines, false, repeats),
    on: linesPerSecond(lines, true, repeats),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await captureBench()));
}
