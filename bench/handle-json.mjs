// The line path in process: `JSON.parse` of behest lines (the floor), the behest line decoder
// (depth check, parse, field checks, times) and `sink.handleJson` of the same lines (decoding,
// identifiers, reordering, duplicates, runs, spans and metrics into real SDK providers that drop
// what they get; then again with the lean spans `startTelemetry` starts). CPU time per line (user +
// system), median of runs that alternate the four.
// The sink holds events for reordering by their count (`countWindowsInEvents`), as `ingest` does:
// a window in time would never pass in this synchronous loop, so that most events would be mapped
// by the shutdown. The time of each sink includes its shutdown, so that no work goes untimed.
// Usage: node --expose-gc bench/handle-json.mjs [lines] [repeats]
import { createAgentOtelSink } from '../dist/index.js';
import { createLineDecoder } from '../dist/dialects/detect.js';
import { createBridgeSink } from '../dist/sink/bridge-sink.js';
import { LINES_AT_ONCE } from '../dist/sink/line-decoding.js';
import { behestLines } from './ingest.mjs';
import { benchProviders } from './providers.mjs';
import { median } from './workload.mjs';

/** CPU microseconds per line of `work` over `lines`, and of `finish` after them. */
export async function cpuPerLine(lines, work, finish = () => undefined) {
  globalThis.gc?.();
  const started = process.cpuUsage();
  for (const line of lines) work(line);
  await finish();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / lines.length;
}

/**
 * CPU per line of `handleJson` of every line into `providers` (ingest's count windows), the
 * sink's shutdown and a collection of `providers.reader` (if any) included.
 */
export async function sinkPerLine(lines, { tracerProvider, meterProvider, reader }) {
  const sink = createAgentOtelSink({
    tracerProvider,
    meterProvider,
    env: {},
    countWindowsInEvents: true,
  });
  const micros = await cpuPerLine(
    lines,
    (line) => sink.handleJson(line, 'behest'),
    async () => {
      await sink.shutdown();
      await reader?.collect();
    },
  );
  // Held events are counted once applied: at shutdown, every one of them.
  const { accepted } = sink.stats().events;
  if (accepted !== lines.length) throw new Error(`accepted ${accepted} of ${lines.length} lines`);
  return micros;
}

const handleJsonPerLine = (lines, lean = false) => {
  const { tracerProvider, meterProvider } = benchProviders({ lean });
  return sinkPerLine(lines, { tracerProvider, meterProvider });
};

/**
 * CPU per line of the CLI's way in: a stream's `handleJsonLines` of slices of `LINES_AT_ONCE`
 * lines into the lean providers (each slice decoded before any of it is applied).
 */
async function slicedPerLine(lines) {
  const { tracerProvider, meterProvider, reader } = benchProviders({ lean: true });
  const sink = createBridgeSink({
    tracerProvider,
    meterProvider,
    env: {},
    countWindowsInEvents: true,
  });
  const stream = sink.openStream('bench', 'behest');
  const slices = [];
  for (let at = 0; at < lines.length; at += LINES_AT_ONCE)
    slices.push(lines.slice(at, at + LINES_AT_ONCE));
  const answers = [];
  globalThis.gc?.();
  const started = process.cpuUsage();
  for (const slice of slices) stream.handleJsonLines(slice, answers);
  await sink.shutdown();
  await reader.collect();
  const used = process.cpuUsage(started);
  const { accepted } = sink.stats().events;
  if (accepted !== lines.length) throw new Error(`accepted ${accepted} of ${lines.length} lines`);
  return (used.user + used.system) / lines.length;
}

export async function handleJsonBench({ lines: count = 200_000, repeats = 5 } = {}) {
  const lines = behestLines(count);
  const parse = [];
  const decode = [];
  const handle = [];
  const handleLean = [];
  const sliced = [];
  // One warm-up of each, then alternated repeats.
  for (let i = 0; i <= repeats; i += 1) {
    const p = await cpuPerLine(lines, (line) => JSON.parse(line));
    const decoder = createLineDecoder('behest', { scope: 'bench', arrival: () => [0, 0] });
    const d = await cpuPerLine(lines, (line) => decoder.decodeLine(line));
    const h = await handleJsonPerLine(lines);
    const l = await handleJsonPerLine(lines, true);
    const s = await slicedPerLine(lines);
    if (i === 0) continue;
    parse.push(p);
    decode.push(d);
    handle.push(h);
    handleLean.push(l);
    sliced.push(s);
  }
  return {
    lines: lines.length,
    parse: median(parse),
    decode: median(decode),
    handleJson: median(handle),
    handleJsonLean: median(handleLean),
    sliced: median(sliced),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await handleJsonBench({
    lines: Number(process.argv[2] ?? 200_000),
    repeats: Number(process.argv[3] ?? 5),
  });
  console.log(
    `${r.lines} behest lines, CPU per line: JSON.parse ${r.parse.toFixed(3)} µs, decode ${r.decode.toFixed(3)} µs (${(r.decode / r.parse).toFixed(2)}×), handleJson ${r.handleJson.toFixed(3)} µs (${(r.handleJson / r.parse).toFixed(2)}×), into lean spans ${r.handleJsonLean.toFixed(3)} µs (${(r.handleJsonLean / r.parse).toFixed(2)}×), in slices ${r.sliced.toFixed(3)} µs (${(r.sliced / r.parse).toFixed(2)}×)`,
  );
}
