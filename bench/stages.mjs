// The line path stage by stage, in process, over the same behest lines: CPU per line of
// `JSON.parse`; of the behest line decoder; of `handleJson` into no-op providers (identifiers,
// reordering, duplicates, runs; no spans, no metrics); into the CLI's providers (`startTelemetry`'s
// lean spans and tallied histograms), ended spans dropped; and the same with every ended span
// encoded to OTLP/protobuf by the CLI's encoder, in batches as the batch processor hands them on.
// Each stage is timed whole (its shutdown and a metric collection included) and reported with
// what it adds to the one before. Runs alternate the stages; medians.
// Usage: node --expose-gc bench/stages.mjs [lines] [repeats]
import { createNoopMeter, trace } from '@opentelemetry/api';
import { createLineDecoder } from '../dist/dialects/detect.js';
import { encodeTraceRequest } from '../dist/telemetry/otlp/otlp-trace-encoder.js';
import { cpuPerLine, sinkPerLine } from './handle-json.mjs';
import { behestLines } from './ingest.mjs';
import { benchProviders } from './providers.mjs';
import { median } from './workload.mjs';

/** The batch processor's default batch (spans per export request). */
const BATCH = 512;

// The API's no-op tracer (no global provider is registered here).
const noopTracer = trace.getTracerProvider().getTracer('bench');
const noopProviders = () => ({
  tracerProvider: { getTracer: () => noopTracer },
  meterProvider: { getMeter: () => createNoopMeter() },
});

/** The CLI's providers, each ended span kept for a batch and the batch encoded, bytes dropped. */
function encodingProviders() {
  let batch = [];
  const stats = { bytes: 0, spans: 0 };
  const encode = () => {
    if (batch.length === 0) return;
    stats.bytes += encodeTraceRequest(batch).length;
    stats.spans += batch.length;
    batch = [];
  };
  const providers = benchProviders({
    lean: true,
    spanProcessor: {
      onStart() {},
      onEnd(span) {
        batch.push(span);
        if (batch.length >= BATCH) encode();
      },
      forceFlush: () => (encode(), Promise.resolve()),
      shutdown: () => (encode(), Promise.resolve()),
    },
  });
  return { ...providers, stats };
}

export async function stagesBench({ lines: count = 200_000, repeats = 5 } = {}) {
  const lines = behestLines(count);
  const stages = {
    parse: () => cpuPerLine(lines, (line) => JSON.parse(line)),
    decode: () => {
      const decoder = createLineDecoder('behest', { scope: 'bench', arrival: () => [0, 0] });
      return cpuPerLine(lines, (line) => decoder.decodeLine(line));
    },
    mapping: () => sinkPerLine(lines, noopProviders()),
    spans: () => sinkPerLine(lines, benchProviders({ lean: true })),
    encoded: async () => {
      const providers = encodingProviders();
      const micros = await sinkPerLine(lines, providers);
      if (providers.stats.spans === 0) throw new Error('no span was encoded');
      return micros;
    },
  };
  const results = Object.fromEntries(Object.keys(stages).map((k) => [k, []]));
  // One warm-up of each, then alternated repeats.
  for (let i = 0; i <= repeats; i += 1)
    for (const [name, run] of Object.entries(stages)) {
      const micros = await run();
      if (i > 0) results[name].push(micros);
    }
  return {
    lines: lines.length,
    ...Object.fromEntries(Object.entries(results).map(([k, v]) => [k, median(v)])),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await stagesBench({
    lines: Number(process.argv[2] ?? 200_000),
    repeats: Number(process.argv[3] ?? 5),
  });
  const rows = [
    ['JSON.parse', r.parse, 0],
    ['the behest line decoder (depth, parse, field checks, times)', r.decode, r.parse],
    ['handleJson into no-op providers (identifiers, order, runs)', r.mapping, r.decode],
    ["handleJson into the CLI's providers (lean spans, tallied metrics)", r.spans, r.mapping],
    ['the same, every span encoded to OTLP/protobuf', r.encoded, r.spans],
  ];
  console.log(`${r.lines} behest lines, CPU per line (median):`);
  for (const [name, total, before] of rows)
    console.log(
      `  ${name}: ${total.toFixed(3)} µs (${(total / r.parse).toFixed(2)}× JSON.parse), +${(total - before).toFixed(3)}`,
    );
}
