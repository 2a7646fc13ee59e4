import type { DialectName } from '../events/dialect-name.js';
import type { Settler } from '../mapping/order/reorder-buffer.js';
import type { TrackOutcome } from '../mapping/run-tracker.js';
import type { HandleResult } from './agent-otel-sink.js';

/**
 * What became of one input (a line, a call of `handle`) that maps to one or more events, some of
 * which may be held for reordering: the input is counted once, when the last of its events has
 * been applied, with what the tracker made of them.
 */
export class InputOutcome implements Settler {
  // Most inputs are one event: its answer is kept apart, and the list made for a second.
  private first: HandleResult | undefined;
  private rest: HandleResult[] | undefined;
  private refused: (TrackOutcome | undefined)[] | undefined;
  private pending = 0;
  private offering = true;
  private answer: HandleResult | undefined;

  constructor(
    private readonly dialect: DialectName | 'unknown',
    /** The runtime's own name for the input, added to its answer. */
    readonly sourceType: string | undefined,
    private readonly count: (result: HandleResult) => void,
  ) {}

  /** Before event `index` is offered (a held event may be applied within the offer). */
  expect(): void {
    this.pending += 1;
  }

  /** What the offer of event `index` answered. */
  offered(index: number, result: HandleResult, held: boolean): void {
    if (index === 0) this.first = result;
    else (this.rest ??= [])[index - 1] = result;
    if (!held) this.pending -= 1;
  }

  /** A held event was applied (the buffer's `Settler`). */
  settled(index: number, outcome: TrackOutcome): void {
    if (outcome.outcome !== 'accepted') (this.refused ??= [])[index] = outcome;
    this.pending -= 1;
    if (this.pending === 0 && !this.offering) this.count(this.result());
  }

  /** Every event was offered: the input's answer now (counted now unless events are held). */
  finish(): HandleResult {
    this.offering = false;
    const result = this.result();
    if (this.pending === 0) this.count(result);
    return result;
  }

  /** The answer, made once every event has been offered and again only if one was refused since. */
  private result(): HandleResult {
    if (this.answer !== undefined && this.refused === undefined) return this.answer;
    const refused = this.refused;
    let combined: HandleResult;
    if (refused === undefined && this.rest === undefined && this.first?.outcome === 'accepted') {
      // One event, accepted: its own answer (most inputs; nothing made for them).
      combined = this.first;
    } else {
      const offered =
        this.first === undefined
          ? []
          : this.rest === undefined
            ? [this.first]
            : [this.first, ...this.rest];
      const results =
        refused === undefined
          ? offered
          : offered.map((r, i) => (refused[i] === undefined ? r : { ...r, ...refused[i] }));
      combined = combine(results, this.dialect);
    }
    // An event's answer made with the input's source type (see `acceptedAnswer`) is kept as is.
    this.answer =
      this.sourceType === undefined || combined.sourceType === this.sourceType
        ? combined
        : { ...combined, sourceType: this.sourceType };
    return this.answer;
  }
}

/** One input may map to several events: it is rejected if one was, late or duplicate if all were. */
export function combine(
  results: readonly HandleResult[],
  dialect: DialectName | 'unknown',
): HandleResult {
  const first = results[0];
  if (results.length === 1 && first!.outcome === 'accepted') return first!;
  const runId = first?.runId;
  const base = { dialect, ...(runId === undefined ? {} : { runId }) };
  const rejected = results.find((r) => r.outcome === 'rejected');
  if (rejected !== undefined) return { ...rejected, ...base };
  if (
    first !== undefined &&
    first.outcome !== 'accepted' &&
    results.every((r) => r.outcome === first.outcome)
  )
    return { ...first, ...base };
  return { outcome: 'accepted', ...base };
}

/** An accepted event's answer, with its input's source type (so that nothing is copied to add it). */
export function acceptedAnswer(
  dialect: DialectName,
  runId: string,
  sourceType: string | undefined,
): HandleResult {
  return sourceType === undefined
    ? { outcome: 'accepted', dialect, runId }
    : { outcome: 'accepted', dialect, runId, sourceType };
}

/** An event offered after the sink was shut down. */
export function sinkClosed(dialect: DialectName, runId: string): HandleResult {
  return {
    outcome: 'rejected',
    dialect,
    reason: 'sink_closed',
    message: 'the sink was shut down',
    runId,
  };
}
