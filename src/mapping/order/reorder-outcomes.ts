// What the reorder buffer answers for an event it takes, or turns down at once.
import type { AgentEvent } from '../../events/agent-event.js';
import type { LimitHit } from '../metrics/limit-report.js';
import type { OfferOutcome } from './reorder-options.js';

/** Taken, to be applied in its turn. */
export const HELD: OfferOutcome = { outcome: 'accepted', held: true };

/** The same event as one its run has taken (type, time and content). */
export function duplicateEvent(event: AgentEvent): OfferOutcome {
  return {
    outcome: 'duplicate',
    reason: 'duplicate_event',
    message: `duplicate ${event.type} for run ${event.runId}`,
  };
}

/** Earlier than events of its run already applied: past the reorder window (a limit hit). */
export function lateForWindow(event: AgentEvent, limitHit: LimitHit): OfferOutcome {
  limitHit(
    'reorder_window',
    'an event arrived after later events of its run were applied (a redelivery, or displaced beyond the reorder window); it is counted as late',
  );
  return {
    outcome: 'late',
    reason: 'reorder_window',
    message: `${event.type} of run ${event.runId} arrived after later events of the run were applied`,
  };
}

/** A terminal event of a run another terminal event ends (`why`: which ended when). */
export function secondTerminal(
  event: AgentEvent,
  why: 'which already ended' | 'which ended earlier',
): { readonly outcome: 'late'; readonly reason: string; readonly message: string } {
  return {
    outcome: 'late',
    reason: 'second_terminal',
    message: `${event.type} for run ${event.runId}, ${why}`,
  };
}
