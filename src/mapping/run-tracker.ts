import { createNoopMeter, TraceFlags } from '@opentelemetry/api';
import type { Span } from '@opentelemetry/api';
import type { AgentEvent } from '../events/agent-event.js';
import { compareHrTime, maxHrTime } from '../events/hr-time.js';
import type { DialectName } from '../events/dialect-name.js';
import { applyEvent } from './apply-event.js';
import { groupOpenRuns, toOpenRun } from './open-runs.js';
import type { OpenRun, OpenRunGroup } from './open-runs.js';
import { createInstruments } from './metrics/instruments.js';
import { endRun } from './spans/run-span.js';
import { startRun } from './spans/run-span.js';
import type { RunEnding } from './spans/run-span.js';
import { toEnding } from './spans/run-ending.js';
import { RecencyList } from './recency-list.js';
import type { RunRecord } from './run-state.js';
import * as S from './semconv.js';
import type { TrackerContext } from './tracker-context.js';
import type { Printed } from './order/event-fingerprint.js';

/** What the tracker did with one event. */
export type TrackOutcome =
  | { readonly outcome: 'accepted' }
  | {
      readonly outcome: 'late' | 'duplicate' | 'rejected';
      readonly reason: string;
      readonly message: string;
    };

/** Why a run was ended as abandoned. */
export type EvictionReason = 'idle_timeout' | 'capacity' | 'shutdown' | 'end_of_input';

const NO_METRICS = createInstruments(createNoopMeter());

/**
 * Per-run state and lifecycle: turns each run's events, applied in time order (see
 * `ReorderBuffer`), into spans and metrics.
 */
export class RunTracker {
  private readonly runs = new Map<string, RunRecord>();
  /** The open runs, least recently active first. */
  private readonly recency = new RecencyList<RunRecord>();
  // Finished runs → fingerprint of their terminal event (-1: none), to tell duplicates from late events.
  private readonly finished = new Map<string, number>();
  // Runs forgotten after their metrics were recorded: rebuilt from redelivered events, they
  // export their spans again (same ids, same content) but record no metric a second time.
  private readonly counted = new Set<string>();
  // Open runs let go (their partition moved away) → metric writes made for them here: rebuilt
  // here from their redelivered events, they skip those writes (see `recordOnce`).
  private readonly letGo = new Map<string, number>();
  /** Runs ended so far, by outcome. */
  readonly outcomes: Record<RunEnding['outcome'], number> = {
    completed: 0,
    failed: 0,
    cancelled: 0,
    abandoned: 0,
  };

  /** Cost of the runs ended so far: US dollars of priced calls, calls priced and unpriced. */
  readonly cost = { usd: 0, pricedCalls: 0, unpricedCalls: 0 };

  /** Told of each run ended without its terminal event (idle, capacity, end of input). */
  onAbandoned: ((runId: string) => void) | undefined;

  constructor(private readonly ctx: TrackerContext) {}

  get openRuns(): number {
    return this.runs.size;
  }

  /**
   * For an event of run `runId` (its own, read once) that has finished: `duplicate` when it is
   * the run's terminal event again, `late` otherwise. Undefined while it has not finished.
   */
  afterFinish(event: AgentEvent, printed: Printed, runId: string): TrackOutcome | undefined {
    const terminalKey = this.finished.get(runId);
    if (terminalKey === undefined) return undefined;
    return printed.fingerprint === terminalKey
      ? {
          outcome: 'duplicate',
          reason: 'duplicate_event',
          message: `duplicate ${event.type} for finished run ${event.runId}`,
        }
      : {
          outcome: 'late',
          reason: 'run_finished',
          message: `${event.type} after run ${event.runId} finished and its grace period passed`,
        };
  }

  /** Whether the run is open here. */
  isOpen(runId: string): boolean {
    return this.runs.has(runId);
  }

  /**
   * Applies one event, in its run's time order (`printed`: its `eventFingerprint`, asked for if
   * needed; `runId`: the event's, where the caller has it). Each field of the event is read once:
   * events of every type pass here.
   */
  track(
    event: AgentEvent,
    dialect: DialectName,
    printed: Printed,
    runId: string = event.runId,
  ): TrackOutcome {
    // An open run has not finished (`finish` lets it go first): one lookup for most events.
    let run = this.runs.get(runId);
    if (run === undefined && this.finished.has(runId))
      return this.afterFinish(event, printed, runId)!;
    const now = this.ctx.now();
    const type = event.type;
    if (run !== undefined) {
      this.recency.use(run);
    } else {
      run = this.open(event, dialect, now);
      if (type === 'RunStarted') return { outcome: 'accepted' };
    }
    run.lastSeen = maxHrTime(run.lastSeen, event.time);
    if (event.timeFromArrival === true) run.timedByArrival = true;
    run.lastEvent = type;
    run.lastActivityMillis = now;
    // The type read once narrows the event (see `isTerminal`).
    if (type === 'RunCompleted' || type === 'RunFailed' || type === 'RunCancelled') {
      this.finish(run, toEnding(this.ctx, run, event), printed.fingerprint);
      return { outcome: 'accepted' };
    }
    return applyEvent(this.ctx, run, event);
  }

  /**
   * Forgets that a run finished, so that its events, delivered again, rebuild it (used when its
   * export failed and its source will redeliver).
   */
  forget(runId: string): void {
    if (!this.finished.delete(runId)) return;
    this.counted.add(runId);
    if (this.counted.size > this.ctx.finishedRunMemory)
      this.counted.delete(this.counted.values().next().value!);
  }

  /** The open runs, oldest first by their own start time, at most `limit` of them. */
  openRunsView(limit: number): OpenRun[] {
    const now = this.ctx.now();
    return [...this.runs.values()]
      .sort((a, b) => compareHrTime(a.start, b.start))
      .slice(0, limit)
      .map((run) => toOpenRun(run, run.agentName, now));
  }

  /** The open runs grouped by agent and model (the open-run gauges). */
  openRunGroups(): OpenRunGroup[] {
    return groupOpenRuns(this.runs.values(), this.ctx.now());
  }

  /** Metric writes an open run made so far (undefined: no such open run). */
  metricWritesOf(runId: string): number | undefined {
    return this.runs.get(runId)?.metricWrites;
  }

  /**
   * A run about to be rebuilt here from events that made `writes` metric writes elsewhere (its
   * checkpoint says so): those writes are not made again.
   */
  expectReplay(runId: string, writes: number): void {
    if (writes <= 0 || this.runs.has(runId)) return;
    this.letGo.set(runId, Math.max(writes, this.letGo.get(runId) ?? 0));
    if (this.letGo.size > this.ctx.finishedRunMemory)
      this.letGo.delete(this.letGo.keys().next().value!);
  }

  /**
   * Lets a run go without ending it: its source hands its events to another consumer (a partition
   * moved away). An open run exports nothing more and counts no outcome, and leaves the active
   * runs; a finished one is forgotten as above. Its events, delivered here again later, rebuild it
   * from the start, and what it recorded before is not recorded again.
   */
  discard(runId: string): void {
    const run = this.runs.get(runId);
    if (run === undefined) {
      this.forget(runId);
      return;
    }
    this.runs.delete(runId);
    this.recency.remove(run);
    // It is no longer active here; what it recorded stays recorded, once.
    run.instruments.runsActive.add(-1, this.ctx.metricSets.agent(run.agentName));
    this.letGo.set(runId, run.metricWrites);
    if (this.letGo.size > this.ctx.finishedRunMemory)
      this.letGo.delete(this.letGo.keys().next().value!);
  }

  /**
   * Takes a run as finished elsewhere (its export is durable): its events, delivered here, are
   * late or duplicates, never a second run.
   */
  markFinished(runId: string): void {
    if (!this.runs.has(runId) && !this.finished.has(runId)) this.rememberFinished(runId, -1);
  }

  private rememberFinished(runId: string, terminalKey: number): void {
    this.finished.set(runId, terminalKey);
    if (this.finished.size > this.ctx.finishedRunMemory) {
      const oldest = this.finished.keys().next();
      if (oldest.done !== true) this.finished.delete(oldest.value);
    }
  }

  /** Ends runs that saw no event for longer than the idle timeout. */
  abandonIdle(): number {
    const cutoff = this.ctx.now() - this.ctx.idleTimeoutMillis;
    let count = 0;
    for (const run of this.recency) {
      if (run.lastActivityMillis > cutoff) break;
      this.abandon(run, 'idle_timeout');
      count += 1;
    }
    return count;
  }

  /** Ends every open run as abandoned (end of input, shutdown). */
  abandonAll(reason: EvictionReason): number {
    const open = [...this.recency];
    for (const run of open) this.abandon(run, reason);
    return open.length;
  }

  private open(event: AgentEvent, dialect: DialectName, now: number): RunRecord {
    if (this.runs.size >= this.ctx.maxOpenRuns) {
      const oldest = this.recency.leastRecent;
      if (oldest !== undefined) {
        this.ctx.limitHit(
          'open_runs',
          `${this.ctx.maxOpenRuns} runs are open; the least recently active is ended as abandoned (maxOpenRuns)`,
        );
        this.abandon(oldest, 'capacity');
      }
    }
    const run = startRun(
      this.ctx,
      event,
      dialect,
      now,
      this.counted.has(event.runId) ? NO_METRICS : this.ctx.instruments,
      (parentRunId) => this.runs.get(parentRunId),
    );
    this.runs.set(event.runId, run);
    this.recency.add(run);
    const replayed = this.letGo.get(event.runId);
    if (replayed !== undefined) {
      run.replayedWrites = replayed;
      this.letGo.delete(event.runId);
    }
    run.instruments.runsActive.add(1, this.ctx.metricSets.agent(run.agentName));
    return run;
  }

  private abandon(run: RunRecord, reason: EvictionReason): void {
    this.finish(
      run,
      { outcome: 'abandoned', time: run.lastSeen, errorType: 'abandoned' },
      undefined,
    );
    run.instruments.runsEvicted.add(1, { [S.ATTR_AGENT_BRIDGE_REASON]: reason });
    this.onAbandoned?.(run.runId);
  }

  private finish(run: RunRecord, ending: RunEnding, terminalKey: number | undefined): void {
    this.runs.delete(run.runId);
    this.recency.remove(run);
    endRun(this.ctx, run, ending);
    this.outcomes[ending.outcome] += 1;
    this.cost.usd += run.costUsd ?? 0;
    this.cost.pricedCalls += run.pricedCalls;
    this.cost.unpricedCalls += run.unpricedCalls;
    // Remembered before the listener hears of it, so that the listener may forget it at once.
    this.rememberFinished(run.runId, terminalKey ?? -1);
    if (this.ctx.onRunEnd !== undefined) {
      // A run a sampler dropped makes no spans: nothing of it is owed to a collector.
      const spanIds = isSampled(run.span) ? run.spanIds : [];
      try {
        this.ctx.onRunEnd({
          runId: run.runId,
          traceId: run.traceId,
          dialect: run.dialect,
          outcome: ending.outcome,
          iterations: ending.iterations ?? run.iterationCount,
          synthesized: run.synthesized,
          spanCount: spanIds.length,
          spanIds,
        });
      } catch {
        // A listener's failure must not break the mapping.
      }
    }
  }
}

function isSampled(span: Span): boolean {
  return (span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0;
}
