// Heap bytes allocated per event on the accepted path: `JSON.parse` of the demo's behest lines
// (the floor), `handleJson` of the same lines, `sink.handle` of the same events already typed, and
// the bare-SDK mapping of them (bench/bare-sdk.mjs), all to providers that drop what they get.
// V8 counts no allocations, so they are read as the growth of the used heap over a slice of events
// during which no collection ran (checked with the `gc` performance entries; a slice that saw one
// is left out); the median slice's figure, per event. Usage: node --expose-gc bench/allocations.mjs
import { PerformanceObserver } from 'node:perf_hooks';
import { createAgentOtelSink } from '../dist/index.js';
import { createDemoLines } from '../dist/sources/demo-runs.js';
import { createBareSdkMapper } from './bare-sdk.mjs';
import { benchProviders } from './providers.mjs';
import { fleetEvents, median } from './workload.mjs';

let collections = 0;
const observer = new PerformanceObserver((list) => (collections += list.getEntries().length));
observer.observe({ entryTypes: ['gc'] });
/** Lets the collections that ran so far be counted. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

/** Bytes per item of `work` over slices of `slice` items, slices with a collection left out. */
async function bytesPerItem(items, work, slice) {
  const samples = [];
  for (let from = 0; from + slice <= items.length; from += slice) {
    globalThis.gc();
    await settle();
    const before = collections;
    const heap = process.memoryUsage().heapUsed;
    for (let i = from; i < from + slice; i += 1) work(items[i]);
    const grown = process.memoryUsage().heapUsed - heap;
    await settle();
    // A slice that saw a collection says nothing (its events are not fed again: state moved on).
    if (collections === before) samples.push(grown / slice);
  }
  return samples.length === 0 ? Number.NaN : median(samples);
}

export async function allocationsBench({ runs = 400, slice = 500 } = {}) {
  if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');
  const lines = createDemoLines(runs, Date.UTC(2025, 5, 1, 12));
  const parse = await bytesPerItem(lines, (l) => JSON.parse(l), slice);
  const json = (() => {
    const { tracerProvider, meterProvider } = benchProviders();
    // Held by their count, as `ingest` holds them: a window in time would never pass here, and
    // most events would be mapped after the slices, by the shutdown.
    const sink = createAgentOtelSink({
      tracerProvider,
      meterProvider,
      env: {},
      countWindowsInEvents: true,
    });
    return { sink, handle: (l) => sink.handleJson(l, 'behest') };
  })();
  const handleJson = await bytesPerItem(lines, json.handle, slice);
  await json.sink.shutdown();
  const events = fleetEvents(Math.max(20, Math.floor(runs / 4)));
  const typed = (() => {
    const { tracerProvider, meterProvider } = benchProviders({ bridgeIds: true });
    const sink = createAgentOtelSink({
      tracerProvider,
      meterProvider,
      env: {},
      reorderWindowMillis: 0,
      lateGraceMillis: 0,
    });
    return { sink, handle: (e) => sink.handle(e) };
  })();
  const handle = await bytesPerItem(events, typed.handle, slice);
  await typed.sink.shutdown();
  const { tracerProvider, meterProvider } = benchProviders();
  const bare = await bytesPerItem(
    events,
    createBareSdkMapper(tracerProvider, meterProvider),
    slice,
  );
  observer.disconnect();
  return { lines: lines.length, events: events.length, parse, handleJson, handle, bare };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await allocationsBench();
  console.log(
    `bytes allocated per event: JSON.parse ${r.parse.toFixed(0)}, handleJson ${r.handleJson.toFixed(0)} (${(r.handleJson / r.parse).toFixed(1)}×), sink.handle ${r.handle.toFixed(0)}, bare SDK ${r.bare.toFixed(0)} (${(r.handle / r.bare).toFixed(2)}×)`,
  );
}
