import type { AgentOtelSink, EventStream, HandleResult } from './agent-otel-sink.js';
import type { ParseResult } from '../dialects/shared/parse-result.js';
import type { DialectName, InputDialect } from '../events/dialect-name.js';
import type { AgentEvent } from '../events/agent-event.js';
import type { OpenRun } from '../mapping/open-runs.js';

/**
 * A stream whose lines arrive by one of several ways (the partitions of a partitioned consumer):
 * a run's events are held by the clock of the lane its first event came by (see `Lane`).
 */
export interface LaneStream extends EventStream {
  handleJson(line: string, lane?: number): HandleResult;
  handleJsonLines(lines: readonly string[], into: HandleResult[], lane?: number): void;
}

/** What the bridge's own sources need beyond the public sink (not part of the public API). */
export interface BridgeSink extends AgentOtelSink {
  openStream(scope: string, dialect?: InputDialect): LaneStream;
  /** Maps what a source decoded itself (e.g. crabtalk daemon frames). Never throws. */
  handleParsed(result: ParseResult, dialect: DialectName | 'unknown'): HandleResult;
  /** Counts a hit of a source's own limit (e.g. `request_rate`) in `agent_bridge.limits.hit`; says so once. */
  limitHit(limit: string, message: string): void;
  /** Counts an input the caller rejected before parsing (an oversize line, invalid UTF-8). */
  reject(reason: string, message: string): HandleResult;
  /** Forgets a finished run so that its redelivered events rebuild it (after a failed export). */
  forgetRun(runId: string): void;
  /**
   * Lets a run go unended, held events and all, because its events now go to another consumer
   * (a partition moved away); delivered here again, they rebuild it from the start.
   */
  dropRun(runId: string): void;
  /**
   * Rebuilds a run from its checkpointed events (they were accepted once, in `dialect`); the first
   * `metricWrites` metric writes they make were made before, where the checkpoint was saved.
   */
  restoreRun(
    events: readonly AgentEvent[],
    dialect: DialectName,
    metricWrites?: number,
    lane?: number,
  ): void;
  /** Metric writes an open run made so far, for its checkpoint (undefined: not open here). */
  metricWritesOf(runId: string): number | undefined;
  /** Takes a run as finished and durable elsewhere: its events are not made into a run again. */
  markFinished(runId: string): void;
  /**
   * Events on their way back by `lane` (every lane: undefined; a source's messages lost in
   * flight) may be older than events held now: nothing held of it is applied by time for
   * `millis`, and no run's grace period in it ends meanwhile, unless the function returned is
   * called first (nothing was lost after all).
   */
  holdFor(millis: number, lane?: number): () => void;
  /**
   * The time (the sink's clock) through which everything published upstream has reached this
   * sink by a lane, asked at each tick for each lane: its held events and grace periods count time
   * only up to it.
   */
  readThrough(through: (lane: number) => number): void;
  /** The runs in progress, oldest first, at most `limit` (`GET /runs`), and how many are open. */
  openRuns(limit: number): { readonly open: number; readonly runs: readonly OpenRun[] };
}

/** Hooks of the bridge's own sources. */
export interface BridgeSinkHooks {
  /** Each event taken for its run (held or applied), as it was applied. */
  readonly onAccepted?: (event: AgentEvent, dialect: DialectName) => void;
}
