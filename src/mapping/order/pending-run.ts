// A run's state in the reorder buffer, the events it takes (fingerprinted only when asked), the
// check that tells a redelivered event from a new one, and an event applied in its run's order.
import type { HrTime } from '@opentelemetry/api';
import type { AgentEvent } from '../../events/agent-event.js';
import { compareHrTime } from '../../events/hr-time.js';
import type { DialectName } from '../../events/dialect-name.js';
import { AppliedPrints } from './applied-prints.js';
import { eventFingerprint } from './event-fingerprint.js';
import type { Held, Settler } from './held-heap.js';
import type { HeldEvents } from './held-events.js';
import type { Lane } from './lane.js';
import type { ReorderOptions } from './reorder-options.js';
import type { RunTracker, TrackOutcome } from '../run-tracker.js';

export interface PendingRun {
  readonly runId: string;
  /** The way its events arrive by (its first event's), whose clock they are held by. */
  readonly lane: Lane<PendingRun>;
  /** Held events, earliest first by (time, arrival); made when the first is held. */
  held: HeldEvents | undefined;
  /** The run's terminal event, applied last when the grace period ends. */
  terminal: Held | undefined;
  /** Time of the latest event applied: an event before it can no longer be put in order. */
  appliedUpTo: HrTime | undefined;
  /** Fingerprints of the events applied at exactly `appliedUpTo` (at most `seenPerRun`). */
  readonly appliedPrints: AppliedPrints;
}

/** A run's state when its first event is taken: nothing held, nothing applied. */
export function newPendingRun(runId: string, lane: Lane<PendingRun>): PendingRun {
  return {
    runId,
    lane,
    held: undefined,
    terminal: undefined,
    appliedUpTo: undefined,
    appliedPrints: new AppliedPrints(),
  };
}

/**
 * An event taken: its fingerprint is worked out only when a duplicate check needs it, which is
 * where another event of its run has the same time (most events have a time of their own).
 */
export class Pending implements Held {
  seq = 0;
  arrivedAt = 0;
  private print: number | undefined = undefined;
  readonly runId: string;
  readonly time: HrTime;

  constructor(
    readonly event: AgentEvent,
    readonly dialect: DialectName,
    readonly settler: Settler | undefined,
    readonly index: number,
  ) {
    // Read once here: events of every type pass through the buffer, so a read of an event's
    // field anywhere else in it meets a dozen shapes of object, where a `Pending` is one.
    this.runId = event.runId;
    this.time = event.time;
  }

  get fingerprint(): number {
    return (this.print ??= eventFingerprint(this.event));
  }
}

/**
 * Whether the run has taken this event already: it is its terminal event, applied at the run's
 * latest time, or held. Only an event of the same time can be the same event (a fingerprint
 * covers the time), so a fingerprint is compared only with those.
 */
export function isSeen(run: PendingRun, event: Held): boolean {
  const time = event.time;
  const terminal = run.terminal;
  if (
    terminal !== undefined &&
    compareHrTime(terminal.time, time) === 0 &&
    terminal.fingerprint === event.fingerprint
  )
    return true;
  if (
    run.appliedUpTo !== undefined &&
    compareHrTime(run.appliedUpTo, time) === 0 &&
    run.appliedPrints.has(event.fingerprint)
  )
    return true;
  return run.held?.has(time, event) === true;
}

/**
 * Applies an event in its run's order, remembering how far the run got; a fault of the tracker's
 * is told to `onError` and answered as a rejection.
 */
export function applyInOrder(
  run: PendingRun,
  held: Held,
  tracker: RunTracker,
  options: Pick<ReorderOptions, 'seenPerRun' | 'onError'>,
): TrackOutcome {
  if (run.appliedUpTo === undefined || compareHrTime(held.time, run.appliedUpTo) > 0) {
    run.appliedUpTo = held.time;
    run.appliedPrints.clear();
  }
  if (run.appliedPrints.size < options.seenPerRun) run.appliedPrints.add(held);
  try {
    return tracker.track(held.event, held.dialect, held, held.runId);
  } catch (error) {
    options.onError(held.event, error);
    return {
      outcome: 'rejected',
      reason: 'internal_error',
      message: 'internal error while mapping; see diagnostics',
    };
  }
}
