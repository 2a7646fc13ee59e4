// Memory per open run: `runs` runs left open in one sink, each mid-way through its second model
// iteration (a finished iteration with a tool execution, then a model call streaming text), the
// state a busy fleet keeps in the bridge. Heap after a full GC, minus the heap before, per run;
// the events themselves are created and dropped one run at a time so that only the bridge's state
// is counted. Usage: node --expose-gc bench/open-runs.mjs [runs]
import { createAgentOtelSink } from '../dist/index.js';
import { createBareSdkMapper } from './bare-sdk.mjs';
import { benchProviders } from './providers.mjs';
import { runEvents } from './workload.mjs';

/** The events of a run up to (not including) the end of its second model call. */
function openRunEvents(i) {
  const all = runEvents(Date.UTC(2025, 5, 1, 12) * 1000 + i * 1000, { iterations: 3 });
  let modelStarts = 0;
  const cut = all.findIndex((e) => e.type === 'ModelStarted' && ++modelStarts === 2);
  return all.slice(0, cut + 11);
}

/** Heap bytes per open run held by `variant`: the bridge's sink or the bare-SDK baseline. */
async function heapPerRun(variant, runs) {
  globalThis.gc();
  const { tracerProvider, meterProvider } = benchProviders({ bridgeIds: variant === 'bridge' });
  let handle;
  let sink;
  if (variant === 'bridge') {
    // In order, nothing held: the mapping's own state (bench/reorder.mjs measures what is held).
    sink = createAgentOtelSink({
      tracerProvider,
      meterProvider,
      env: {},
      maxOpenRuns: runs + 1,
      reorderWindowMillis: 0,
      lateGraceMillis: 0,
    });
    handle = (e) => {
      if (sink.handle(e).outcome !== 'accepted') throw new Error(`not accepted: ${e.type}`);
    };
  } else {
    handle = createBareSdkMapper(tracerProvider, meterProvider, { tallyEvents: true });
  }
  // Warm up everything that is allocated once (instruments, metric streams, code).
  for (const e of openRunEvents(-1)) handle(e);
  globalThis.gc();
  const before = process.memoryUsage().heapUsed;
  let events = 0;
  for (let i = 0; i < runs; i += 1) {
    for (const e of openRunEvents(i)) {
      handle(e);
      events += 1;
    }
  }
  // Kept reachable while the heap is measured (else the optimizer may let it go early).
  globalThis.benchHeld = handle;
  globalThis.gc();
  const after = process.memoryUsage().heapUsed;
  globalThis.benchHeld = undefined;
  if (sink !== undefined) {
    const open = sink.stats().runs.open;
    if (open !== runs + 1) throw new Error(`${open} runs open, expected ${runs + 1}`);
    await sink.shutdown();
  }
  return { eventsPerRun: events / runs, bytesPerRun: (after - before) / runs };
}

export async function openRunsBench({ runs = 100_000 } = {}) {
  if (globalThis.gc === undefined) throw new Error('run with node --expose-gc');
  const baseline = await heapPerRun('baseline', runs);
  const bridge = await heapPerRun('bridge', runs);
  return {
    runs,
    eventsPerRun: bridge.eventsPerRun,
    baselineBytesPerRun: baseline.bytesPerRun,
    bytesPerRun: bridge.bytesPerRun,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await openRunsBench({ runs: Number(process.argv[2] ?? 100_000) });
  console.log(
    `${r.runs} open runs (${r.eventsPerRun} events each): bridge ${(r.bytesPerRun / 1024).toFixed(2)} KiB of heap per run, bare SDK ${(r.baselineBytesPerRun / 1024).toFixed(2)} KiB`,
  );
}
