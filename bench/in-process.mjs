// In-process cost: `sink.handle()` vs a hand-written bare-SDK baseline (bench/bare-sdk.mjs) over the
// same pre-parsed workload, both with real SDK providers (a span processor that drops ended spans,
// a metric reader collected once at the end). CPU time per event (user + system), median of runs
// that alternate the two. Usage: node --expose-gc bench/in-process.mjs [runs] [repeats]
import { createAgentOtelSink } from '../dist/index.js';
import { createBareSdkMapper } from './bare-sdk.mjs';
import { benchProviders } from './providers.mjs';
import { fleetEvents, median } from './workload.mjs';

async function measure(events, variant) {
  globalThis.gc?.();
  const { tracerProvider, meterProvider, reader } = benchProviders({
    bridgeIds: variant === 'bridge',
  });
  let handle;
  if (variant === 'bridge') {
    // In order, in process: nothing to hold (bench/reorder.mjs measures the reorder buffer).
    const sink = createAgentOtelSink({
      tracerProvider,
      meterProvider,
      env: {},
      reorderWindowMillis: 0,
      lateGraceMillis: 0,
    });
    handle = (e) => sink.handle(e);
  } else {
    handle = createBareSdkMapper(tracerProvider, meterProvider, {
      tallyEvents: variant === 'tallied',
    });
  }
  const cpu = process.cpuUsage();
  for (const e of events) handle(e);
  const { resourceMetrics } = await reader.collect();
  const used = process.cpuUsage(cpu);
  const points = resourceMetrics.scopeMetrics.reduce((n, s) => n + s.metrics.length, 0);
  return { microsPerEvent: (used.user + used.system) / events.length, points };
}

export async function inProcessBench({ runs = 2000, repeats = 5 } = {}) {
  const events = fleetEvents(runs);
  const variants = ['baseline', 'tallied', 'bridge'];
  const results = Object.fromEntries(variants.map((v) => [v, []]));
  for (const v of variants) await measure(events.slice(0, 20_000), v);
  for (let i = 0; i < repeats; i += 1)
    for (const v of variants) results[v].push((await measure(events, v)).microsPerEvent);
  return {
    events: events.length,
    baseline: median(results.baseline),
    tallied: median(results.tallied),
    bridge: median(results.bridge),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await inProcessBench({
    runs: Number(process.argv[2] ?? 2000),
    repeats: Number(process.argv[3] ?? 5),
  });
  console.log(
    `${r.events} events: bare SDK ${r.baseline.toFixed(3)} µs/event, bare SDK with tallied events counter ${r.tallied.toFixed(3)}, sink.handle ${r.bridge.toFixed(3)} µs/event; ratio ${(r.bridge / r.baseline).toFixed(2)}× / ${(r.bridge / r.tallied).toFixed(2)}×`,
  );
}
