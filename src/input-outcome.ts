import type { DialectName } from './dialects/parse-result.js';
import type { Settler } from './mapping/reorder-buffer.js';
import type { TrackOutcome } from './mapping/run-tracker.js';
import type { HandleResult } from './sink.js';

/**
 * What became of one input (a line, a call of `handle`) that maps to one or more events, some of
 * which may be held for reordering: the input is counted once, when the last of its events has
 * been applied, with what the tracker made of them.
 */
export class InputOutcome implements Settler {
  private readonly results: HandleResult[] = [];
  private refused: (TrackOutcome | undefined)[] | undefined;
  private pending = 0;
  private offering = true;

  constructor(
    private readonly dialect: DialectName | 'unknown',
    private readonly extra: Partial<HandleResult>,
    private readonly count: (result: HandleResult) => void,
  ) {}

  /** Before event `index` is offered (a held event may be applied within the offer). */
  expect(): void {
    this.pending += 1;
  }

  /** What the offer of event `index` answered. */
  offered(index: number, result: HandleResult, held: boolean): void {
    this.results[index] = result;
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

  private result(): HandleResult {
    const refused = this.refused;
    const results =
      refused === undefined
        ? this.results
        : this.results.map((r, i) => (refused[i] === undefined ? r : { ...r, ...refused[i] }));
    const combined = combine(results, this.dialect);
    return this.extra.sourceType === undefined ? combined : { ...combined, ...this.extra };
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
