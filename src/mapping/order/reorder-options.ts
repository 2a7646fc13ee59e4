import type { AgentEvent } from '../../events/agent-event.js';
import type { LimitHit } from '../metrics/limit-report.js';

/** How long and how far events are held to be put back into their run's time order. */
export interface ReorderOptions {
  /** Wall-clock time an event is held before it may be applied. */
  readonly holdMillis: number;
  /** Events of one run held at most; beyond it the earliest is applied at once. */
  readonly holdEvents: number;
  /** Held events of all runs at most; beyond it the longest-held run gives up its earliest. */
  readonly maxHeldEvents: number;
  /** Wall-clock time a run stays open after its terminal event arrived, for late arrivals. */
  readonly graceMillis: number;
  /**
   * A log read at its own pace (a file, a pipe): the grace period also ends after `graceEvents`
   * further input events, whichever comes first.
   */
  readonly graceByEvents: boolean;
  readonly graceEvents: number;
  /** Open runs at most (the tracker's bound): runs in their grace period give way first. */
  readonly maxOpenRuns: number;
  /** Fingerprints of a run's events remembered to recognise a redelivered one. */
  readonly seenPerRun: number;
  readonly now: () => number;
  readonly limitHit: LimitHit;
  /** Told of an error the tracker threw while applying an event (then refused as rejected). */
  readonly onError: (event: AgentEvent, error: unknown) => void;
}

/** What the buffer did with an event at once. */
export type OfferOutcome =
  | { readonly outcome: 'accepted'; readonly held?: true }
  | {
      readonly outcome: 'late' | 'duplicate';
      readonly reason: string;
      readonly message: string;
    };
