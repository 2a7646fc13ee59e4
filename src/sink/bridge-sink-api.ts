import type { AgentOtelSink, HandleResult } from './agent-otel-sink.js';
import type { ParseResult } from '../dialects/shared/parse-result.js';
import type { DialectName } from '../events/dialect-name.js';
import type { AgentEvent } from '../events/agent-event.js';
import type { OpenRun } from '../mapping/open-runs.js';

/** What the bridge's own sources need beyond the public sink (not part of the public API). */
export interface BridgeSink extends AgentOtelSink {
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
  restoreRun(events: readonly AgentEvent[], dialect: DialectName, metricWrites?: number): void;
  /** Metric writes an open run made so far, for its checkpoint (undefined: not open here). */
  metricWritesOf(runId: string): number | undefined;
  /** Takes a run as finished and durable elsewhere: its events are not made into a run again. */
  markFinished(runId: string): void;
  /**
   * Events on their way back (a source's messages lost in flight) may be older than events held
   * now: nothing held is applied by time for `millis`, and no run's grace period ends meanwhile,
   * unless the function returned is called first (nothing was lost after all).
   */
  holdFor(millis: number): () => void;
  /**
   * The time (the sink's clock) through which everything published upstream has reached this
   * sink, asked at each tick: held events and grace periods count time only up to it.
   */
  readThrough(through: () => number): void;
  /** The runs in progress, oldest first, at most `limit` (`GET /runs`), and how many are open. */
  openRuns(limit: number): { readonly open: number; readonly runs: readonly OpenRun[] };
}

/** Hooks of the bridge's own sources. */
export interface BridgeSinkHooks {
  /** Each event taken for its run (held or applied), as it was applied. */
  readonly onAccepted?: (event: AgentEvent, dialect: DialectName) => void;
}
