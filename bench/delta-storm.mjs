// Text-delta storms: runs whose model calls stream 5 000 deltas each. Cost per delta is the CPU
// time of the storm runs minus that of the same runs without deltas, divided by the deltas; heap
// retained per delta is the heap after a full GC in the middle of a storm, minus the heap at its
// start, divided by the deltas applied in between (what survives the deltas themselves).
// Usage: node --expose-gc bench/delta-storm.mjs [runs] [deltas per call]
import { createAgentOtelSink } from '../dist/index.js';
import { benchProviders } from './providers.mjs';
import { fleetEvents, median, runEvents } from './workload.mjs';

function newSink() {
  const { tracerProvider, meterProvider } = benchProviders();
  return createAgentOtelSink({
    tracerProvider,
    meterProvider,
    env: {},
    reorderWindowMillis: 0,
    lateGraceMillis: 0,
  });
}

function cpuMicros(events) {
  const sink = newSink();
  const cpu = process.cpuUsage();
  for (const e of events) sink.handle(e);
  const used = process.cpuUsage(cpu);
  return used.user + used.system;
}

/** Heap retained per delta, measured inside one long model call. */
function retainedPerDelta(deltas) {
  const sink = newSink();
  const events = runEvents(Date.UTC(2025, 5, 1, 12) * 1000, { iterations: 1, deltas, tools: 0 });
  const firstDelta = events.findIndex((e) => e.type === 'TextDelta');
  const half = firstDelta + Math.floor(deltas / 2);
  for (let i = 0; i <= firstDelta; i += 1) sink.handle(events[i]);
  globalThis.gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = firstDelta + 1; i <= half; i += 1) sink.handle(events[i]);
  globalThis.gc();
  const after = process.memoryUsage().heapUsed;
  for (let i = half + 1; i < events.length; i += 1) sink.handle(events[i]);
  return (after - before) / (half - firstDelta);
}

export function deltaStormBench({ runs = 40, deltas = 5000, repeats = 5 } = {}) {
  if (globalThis.gc === undefined) throw new Error('run with node --expose-gc');
  const storm = fleetEvents(runs, { concurrent: 4, deltas });
  const calm = fleetEvents(runs, { concurrent: 4, deltas: 0 });
  const totalDeltas = storm.length - calm.length;
  cpuMicros(storm.slice(0, 50_000));
  const perDelta = [];
  for (let i = 0; i < repeats; i += 1) {
    globalThis.gc();
    const stormCpu = cpuMicros(storm);
    globalThis.gc();
    const calmCpu = cpuMicros(calm);
    perDelta.push((stormCpu - calmCpu) / totalDeltas);
  }
  // Heap is measured over 200 000 deltas so that the 1 KiB granularity of heapUsed does not matter.
  const retained = median(Array.from({ length: 3 }, () => retainedPerDelta(400_000)));
  return { deltas: totalDeltas, microsPerDelta: median(perDelta), retainedBytesPerDelta: retained };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = deltaStormBench({
    runs: Number(process.argv[2] ?? 40),
    deltas: Number(process.argv[3] ?? 5000),
  });
  console.log(
    `${r.deltas} deltas: ${r.microsPerDelta.toFixed(3)} µs per delta, ${r.retainedBytesPerDelta.toFixed(3)} bytes retained per delta`,
  );
}
