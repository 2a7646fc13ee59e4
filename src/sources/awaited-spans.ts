/** A run that ended here and awaits its spans at the collector. */
export interface AwaitingRun {
  readonly traceId: string;
  readonly spanIds: readonly string[];
  /** How many of its spans are not known to be at the collector yet. */
  missing: number;
}

interface TraceSpans<R extends AwaitingRun> {
  /** Span id → the ended run that awaits it. */
  readonly awaited: Map<string, R>;
  /**
   * Span id → whether it reached the collector (true) or failed (false), for spans no ended run
   * here awaits: an open run's, exported before its end, or a forgotten build's still in flight
   * (the same ids and content as its rebuild's).
   */
  readonly fates: Map<string, boolean>;
  /** When a fate was last noted. */
  notedAt: number;
}

/**
 * The spans of each trace the runs that ended here await from the collector, and the fate of the
 * others. A run counts only its own span ids: the runs of one trace (a parent and its sub-agents)
 * each wait for their own spans, and a span exported twice (by a failed build and by its rebuild)
 * counts once. A span once at the collector stays there: a later failure of another copy of it
 * changes nothing.
 */
export class AwaitedSpans<R extends AwaitingRun> {
  private readonly traces = new Map<string, TraceSpans<R>>();

  /**
   * `run` ended: it awaits those of its spans not known to be at the collector. True when one of
   * them failed already (the run must be rebuilt).
   */
  await(run: R, now: number): boolean {
    const spans = this.trace(run.traceId, now);
    let failed = false;
    for (const id of run.spanIds) {
      const fate = spans.fates.get(id);
      if (fate !== undefined) spans.fates.delete(id);
      if (fate === true || spans.awaited.get(id) === run) continue;
      if (fate === false) failed = true;
      spans.awaited.set(id, run);
      run.missing += 1;
    }
    this.dropIfIdle(run.traceId, spans);
    return failed;
  }

  /** Spans at the collector; `done` hears of each run that now has all of its own there. */
  exported(traceId: string, ids: readonly string[], now: number, done: (run: R) => void): void {
    const spans = this.trace(traceId, now);
    for (const id of ids) {
      const run = spans.awaited.get(id);
      if (run === undefined) {
        spans.fates.set(id, true);
        spans.notedAt = now;
        continue;
      }
      spans.awaited.delete(id);
      run.missing -= 1;
      if (run.missing === 0) done(run);
    }
    this.dropIfIdle(traceId, spans);
  }

  /** Spans that did not reach the collector; `fail` hears of each run that awaited one. */
  failed(traceId: string, ids: readonly string[], now: number, fail: (run: R) => void): void {
    const spans = this.trace(traceId, now);
    for (const id of ids) {
      const run = spans.awaited.get(id);
      if (run !== undefined) fail(run);
      else if (spans.fates.get(id) !== true) {
        spans.fates.set(id, false);
        spans.notedAt = now;
      }
    }
    this.dropIfIdle(traceId, spans);
  }

  /** `run` awaits nothing any more (it failed, or its partition moved away). */
  release(run: R): void {
    const spans = this.traces.get(run.traceId);
    if (spans === undefined) return;
    for (const id of run.spanIds) if (spans.awaited.get(id) === run) spans.awaited.delete(id);
    this.dropIfIdle(run.traceId, spans);
  }

  /**
   * Forgets the fates of traces noted last before `before`: no run open here is that old, so no
   * run that will end here exported those spans (a run rebuilt from redelivered messages exports
   * its spans again).
   */
  sweep(before: number): void {
    for (const [traceId, spans] of this.traces)
      if (spans.notedAt < before) {
        spans.fates.clear();
        this.dropIfIdle(traceId, spans);
      }
  }

  /** Spans awaited and fates remembered, over every trace. */
  get remembered(): number {
    let count = 0;
    for (const spans of this.traces.values()) count += spans.awaited.size + spans.fates.size;
    return count;
  }

  private trace(traceId: string, now: number): TraceSpans<R> {
    let spans = this.traces.get(traceId);
    if (spans === undefined) {
      spans = { awaited: new Map(), fates: new Map(), notedAt: now };
      this.traces.set(traceId, spans);
    }
    return spans;
  }

  private dropIfIdle(traceId: string, spans: TraceSpans<R>): void {
    if (spans.awaited.size === 0 && spans.fates.size === 0) this.traces.delete(traceId);
  }
}
