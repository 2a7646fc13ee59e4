// What the tracker remembers of runs it no longer holds open, and how much of it: finished runs
// (their events after the grace are late, their terminal event again a duplicate), runs forgotten
// after a failed export (rebuilt, they record no metric again), open runs let go or rebuilt from
// a checkpoint (their metric writes are not made twice), and runs finished elsewhere. Each memory
// is bounded (`finishedRunMemory`, 100 000 or the open-run bound in a sink: made small here, on
// the sink's own mapping, so that the bound is reached) and forgets its oldest first; checked
// against a model on generated sequences.
import { diag } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import type { DataPoint } from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config.js';
import { parseLine } from '../../src/dialects/detect.js';
import type { AgentEvent } from '../../src/events/agent-event.js';
import { AgentRunIdGenerator } from '../../src/mapping/id-generator.js';
import { eventFingerprint } from '../../src/mapping/order/event-fingerprint.js';
import { createSinkMapping } from '../../src/sink/sink-mapping.js';
import { toolRun } from '../helpers/behest-lines.js';
import { ManualReader } from '../helpers/harness.js';

/** The sink's own tracker, every memory bounded at `memory` runs, events applied as they come. */
function trackerWith(memory: number) {
  const reader = new ManualReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({
    idGenerator: new AgentRunIdGenerator(),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const config = {
    ...resolveConfig({ env: {}, reorderWindowMillis: 0, lateGraceMillis: 0 }),
    finishedRunMemory: memory,
  };
  const { tracker } = createSinkMapping(config, tracerProvider, meterProvider, diag);
  const sum = async (name: string) => {
    const { resourceMetrics } = await reader.collect();
    return resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .filter((m) => m.descriptor.name === name)
      .flatMap((m) => m.dataPoints as DataPoint<number>[])
      .reduce((t, p) => t + p.value, 0);
  };
  const track = (event: AgentEvent) =>
    tracker.track(event, 'behest', { fingerprint: eventFingerprint(event) }).outcome;
  return { tracker, track, sum, exporter };
}

/** The events of a one-tool run (16 events, one tool call, two model calls) with run id `runId`. */
function runEvents(runId: string): AgentEvent[] {
  return toolRun(runId).map((line) => {
    const { result } = parseLine(line, 'behest');
    if (!result.ok) throw new Error(result.message);
    return result.events[0]!;
  });
}

const idOf = (i: number) => `run-${i}`;
const sizes = fc.record({
  memory: fc.integer({ min: 1, max: 5 }),
  runs: fc.integer({ min: 1, max: 9 }),
});

describe('what the tracker remembers of runs it no longer holds', () => {
  it('remembers the last finishedRunMemory finished runs: their late events and duplicates are told apart, older runs open anew', () => {
    fc.assert(
      fc.property(sizes, fc.nat(), ({ memory, runs }, pick) => {
        const { track } = trackerWith(memory);
        const events = Array.from({ length: runs }, (_, i) => runEvents(idOf(i)));
        for (const run of events) for (const event of run) expect(track(event)).toBe('accepted');
        const i = pick % runs;
        const remembered = i >= runs - memory;
        const terminal = events[i]!.at(-1)!;
        const context = events[i]![1]!;
        // The model: the last `memory` finished runs are remembered, the oldest forgotten first.
        expect(track(terminal)).toBe(remembered ? 'duplicate' : 'accepted');
        if (remembered) expect(track(context)).toBe('late');
      }),
      { numRuns: 150 },
    );
  });

  it('records no metric again for a forgotten run rebuilt, while it is among the last finishedRunMemory forgotten', async () => {
    await fc.assert(
      fc.asyncProperty(sizes, async ({ memory, runs }) => {
        const { tracker, track, sum } = trackerWith(memory);
        const events = Array.from({ length: runs }, (_, i) => runEvents(idOf(i)));
        // Each run's export fails as it ends (as `onRunEnd` may say): forgotten at once.
        for (let i = 0; i < runs; i += 1) {
          for (const event of events[i]!) track(event);
          tracker.forget(idOf(i));
        }
        for (const run of events) for (const event of run) expect(track(event)).toBe('accepted');
        // Runs forgotten beyond the bound (the oldest) count again; the others do not.
        const again = Math.max(0, runs - memory);
        expect(await sum('agent.runs')).toBe(runs + again);
        expect(await sum('agent.tool.calls')).toBe(runs + again);
      }),
      { numRuns: 60 },
    );
  });

  it('makes no metric write twice for an open run let go and rebuilt, while it is among the last finishedRunMemory let go', async () => {
    await fc.assert(
      fc.asyncProperty(sizes, fc.integer({ min: 10, max: 15 }), async ({ memory, runs }, cut) => {
        const { tracker, track, sum } = trackerWith(memory);
        const events = Array.from({ length: runs }, (_, i) => runEvents(idOf(i)));
        // Each run is let go part-way (its tool call already counted), then delivered again whole.
        for (let i = 0; i < runs; i += 1) {
          for (const event of events[i]!.slice(0, cut)) track(event);
          tracker.discard(idOf(i));
        }
        expect(tracker.openRuns).toBe(0);
        for (const run of events) for (const event of run) track(event);
        const again = Math.max(0, runs - memory);
        expect(await sum('agent.tool.calls')).toBe(runs + again);
        expect(await sum('agent.runs')).toBe(runs);
        expect(await sum('agent.runs.active')).toBe(0);
      }),
      { numRuns: 60 },
    );
  });

  it('skips the metric writes a checkpoint says were made (expectReplay), for the last finishedRunMemory runs announced', async () => {
    await fc.assert(
      fc.asyncProperty(sizes, async ({ memory, runs }) => {
        const { tracker, track, sum } = trackerWith(memory);
        const events = Array.from({ length: runs }, (_, i) => runEvents(idOf(i)));
        // Another instance made every write of the first 12 events of each run (its tool call).
        const elsewhere = trackerWith(memory);
        const writes = events.map((run) => {
          for (const event of run.slice(0, 12)) elsewhere.track(event);
          return elsewhere.tracker.metricWritesOf(run[0]!.runId)!;
        });
        expect(writes.every((w) => w > 0)).toBe(true);
        for (let i = 0; i < runs; i += 1) tracker.expectReplay(idOf(i), writes[i]!);
        for (const run of events) for (const event of run) track(event);
        const again = Math.max(0, runs - memory);
        expect(await sum('agent.tool.calls')).toBe(again);
        expect(await sum('agent.runs')).toBe(runs);
      }),
      { numRuns: 60 },
    );
  });

  it('ignores expectReplay for a run open here and for no writes, which take no room in its memory', async () => {
    const { tracker, track, sum } = trackerWith(1);
    const [a, b, c] = [runEvents('run-a'), runEvents('run-b'), runEvents('run-c')];
    for (const event of a.slice(0, 12)) track(event);
    const writes = tracker.metricWritesOf('run-a')!;
    expect(writes).toBeGreaterThan(0);
    // run-c's writes were made elsewhere; run-a's own writes are its, and run-b announces none.
    tracker.expectReplay('run-c', writes);
    tracker.expectReplay('run-a', writes);
    tracker.expectReplay('run-b', 0);
    for (const event of a.slice(12)) track(event);
    for (const event of b) track(event);
    for (const event of c) track(event);
    // run-a and run-b count their tool calls; run-c's was counted elsewhere.
    expect(await sum('agent.tool.calls')).toBe(2);
    expect(await sum('agent.runs')).toBe(3);
  });

  it('takes a run finished elsewhere as finished: its events are late, never a second run; not so for a run open here', () => {
    fc.assert(
      fc.property(sizes, fc.nat(), ({ memory, runs }, pick) => {
        const { tracker, track, exporter } = trackerWith(memory);
        for (let i = 0; i < runs; i += 1) tracker.markFinished(idOf(i));
        const i = pick % runs;
        const remembered = i >= runs - memory;
        const events = runEvents(idOf(i));
        // Its terminal event too is late: no terminal event of it was seen here.
        for (const event of events) expect(track(event)).toBe(remembered ? 'late' : 'accepted');
        expect(exporter.getFinishedSpans().length > 0).toBe(!remembered);
        // An open run is not marked: it goes on and ends here.
        const open = runEvents('run-open');
        track(open[0]!);
        tracker.markFinished('run-open');
        for (const event of open.slice(1)) expect(track(event)).toBe('accepted');
      }),
      { numRuns: 150 },
    );
  });
});
