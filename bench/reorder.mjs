// Reordered delivery against in-order delivery, through the same sink configuration (`ingest`'s:
// a reorder window and a grace period counted in events): CPU per event and heap per open run
// when every run's events are displaced by up to 8 positions and one in twenty is delivered twice;
// and text-delta storms whose deltas share one timestamp against deltas with their own.
// Usage: node --expose-gc bench/reorder.mjs [runs] [storm deltas]
import { createAgentOtelSink } from '../dist/index.js';
import { benchProviders } from './providers.mjs';
import { fleetEvents, median, runEvents } from './workload.mjs';

function newSink(extra = {}) {
  const { tracerProvider, meterProvider } = benchProviders();
  return createAgentOtelSink({
    tracerProvider,
    meterProvider,
    env: {},
    countWindowsInEvents: true,
    ...extra,
  });
}

/** A seeded generator, so that every repeat delivers the same way. */
function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Each run's events displaced by up to `window` of its own positions, one in twenty twice. */
export function reordered(events, window = 8, seed = 7) {
  const random = seeded(seed);
  const positionInRun = new Map();
  const keyed = events.map((e, i) => {
    const k = positionInRun.get(e.runId) ?? 0;
    positionInRun.set(e.runId, k + 1);
    // A run's k-th event moves by up to `window` of the run's own events (about 20 fleet positions
    // apart in this interleaving), so keys stay in fleet order between runs.
    return { e, key: i + random() * window * 20 };
  });
  keyed.sort((a, b) => a.key - b.key);
  const out = [];
  for (const { e } of keyed) {
    out.push(e);
    if (random() < 0.05) out.push(e);
  }
  return out;
}

function cpuMicrosPerEvent(events, perEvent) {
  const sink = newSink();
  const cpu = process.cpuUsage();
  for (const e of events) sink.handle(e);
  sink.endOpenRuns();
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / perEvent;
}

/** Heap per run with `runs` runs open mid-way (their last events not yet delivered). */
function heapPerOpenRun(events, runs) {
  const open = events.filter((e) => e.type !== 'RunCompleted');
  const sink = newSink({ maxOpenRuns: runs + 10, maxHeldEvents: 10_000_000 });
  globalThis.gc();
  const before = process.memoryUsage().heapUsed;
  for (const e of open) sink.handle(e);
  globalThis.benchHeld = sink;
  globalThis.gc();
  const after = process.memoryUsage().heapUsed;
  globalThis.benchHeld = undefined;
  return (after - before) / runs;
}

function storm(deltas, sameTime) {
  const events = runEvents(Date.UTC(2025, 5, 1, 12) * 1000, { iterations: 1, deltas, tools: 0 });
  if (!sameTime) return events;
  const first = events.find((e) => e.type === 'TextDelta').time;
  return events.map((e) => (e.type === 'TextDelta' ? { ...e, time: first } : e));
}

export function reorderBench({ runs = 2000, stormDeltas = 200_000, repeats = 5 } = {}) {
  if (globalThis.gc === undefined) throw new Error('run with node --expose-gc');
  const inOrder = fleetEvents(runs);
  const shuffled = reordered(inOrder);
  const cpu = { inOrder: [], reordered: [] };
  cpuMicrosPerEvent(inOrder.slice(0, 20_000), 20_000);
  for (let i = 0; i < repeats; i += 1) {
    globalThis.gc();
    cpu.inOrder.push(cpuMicrosPerEvent(inOrder, inOrder.length));
    globalThis.gc();
    // Per event of the run, duplicates included in the work but not in the count.
    cpu.reordered.push(cpuMicrosPerEvent(shuffled, inOrder.length));
  }
  const heapRuns = Math.min(runs, 5000);
  const heapEvents = fleetEvents(heapRuns);
  const heap = {
    inOrder: median([1, 2, 3].map(() => heapPerOpenRun(heapEvents, heapRuns))),
    reordered: median([1, 2, 3].map(() => heapPerOpenRun(reordered(heapEvents), heapRuns))),
  };
  const distinct = storm(stormDeltas, false);
  const same = storm(stormDeltas, true);
  const stormCpu = { distinct: [], same: [] };
  for (let i = 0; i < repeats; i += 1) {
    stormCpu.distinct.push(cpuMicrosPerEvent(distinct, stormDeltas));
    stormCpu.same.push(cpuMicrosPerEvent(same, stormDeltas));
  }
  return {
    events: inOrder.length,
    cpuInOrder: median(cpu.inOrder),
    cpuReordered: median(cpu.reordered),
    heapRuns,
    heapInOrder: heap.inOrder,
    heapReordered: heap.reordered,
    stormDeltas,
    stormDistinct: median(stormCpu.distinct),
    stormSame: median(stormCpu.same),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = reorderBench({
    runs: Number(process.argv[2] ?? 2000),
    stormDeltas: Number(process.argv[3] ?? 200_000),
  });
  console.log(
    [
      `${r.events} events: ${r.cpuInOrder.toFixed(3)} µs/event in order, ${r.cpuReordered.toFixed(3)} reordered and duplicated (${(r.cpuReordered / r.cpuInOrder).toFixed(2)}×)`,
      `${r.heapRuns} open runs: ${(r.heapInOrder / 1024).toFixed(2)} KiB/run in order, ${(r.heapReordered / 1024).toFixed(2)} reordered (${(r.heapReordered / r.heapInOrder).toFixed(2)}×)`,
      `${r.stormDeltas} deltas: ${r.stormDistinct.toFixed(3)} µs/delta with their own times, ${r.stormSame.toFixed(3)} sharing one (${(r.stormSame / r.stormDistinct).toFixed(2)}×)`,
    ].join('\n'),
  );
}
