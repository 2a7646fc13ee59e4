// ingest-like in-process throughput with content capture on: the demo's behest lines through handleJson.
const dir = process.argv[2];
const { createAgentOtelSink } = await import(`${dir}/dist/index.js`);
const { createDemoLines } = await import(`${dir}/dist/sources/demo-runs.js`);
const { BasicTracerProvider, SimpleSpanProcessor } = await import('@opentelemetry/sdk-trace');
const lines = createDemoLines(3000, Date.UTC(2025, 5, 1, 12));
const exporter = {
  export: (spans, done) => done({ code: 0 }),
  shutdown: async () => {},
  forceFlush: async () => {},
};
const best = [];
for (let r = 0; r < 5; r++) {
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const sink = createAgentOtelSink({
    captureContent: process.argv[3] === 'on',
    tracerProvider: provider,
    reorderWindowEvents: 0,
    reorderWindowMillis: 0,
    lateGraceMillis: 0,
  });
  const t = performance.now();
  for (const l of lines) sink.handleJson(l, 'behest');
  sink.endOpenRuns();
  best.push(lines.length / ((performance.now() - t) / 1000));
}
console.log(
  dir,
  'capture',
  process.argv[3],
  lines.length,
  'lines',
  Math.round(Math.max(...best)),
  'lines/s',
);
