import type { HandleResult } from '../sink/agent-otel-sink.js';
import type { RunSummary } from '../mapping/tracker-context.js';
import type { ExportListener } from '../telemetry/export/export-watcher.js';
import type { Delivery } from './delivery.js';

export interface LedgerEvents {
  /** The exporter started failing (said once per outage). */
  outage(message: string): void;
  /** Exports succeed again. */
  recovered(): void;
  /** A run's export failed: its messages are redelivered, so it must be rebuilt from them. */
  forgetRun(runId: string): void;
  /**
   * A checkpointed run is durable: resolves true once its checkpoint says so (its last messages
   * are acknowledged only then); false to try again at the next metric export.
   */
  checkpointedRunDurable?(runId: string): Promise<boolean>;
}

interface Exporting {
  readonly runId: string;
  readonly deliveries: Delivery[];
  readonly spanCount: number;
  /** Its spans known to be at the collector, by id (a span exported twice is there once). */
  readonly exported: Set<string>;
  readonly endedAt: number;
  /** Some of its messages were acknowledged when its checkpoint was saved. */
  checkpointed: boolean;
  partition: number | undefined;
}

/**
 * At-least-once bookkeeping. A message is acknowledged only when everything it contributed to is
 * durable: the spans of its run were exported, and a metric collection taken after the run ended
 * was exported. Messages that changed nothing (rejected, ignored, late, duplicate) are acknowledged
 * at once. When an export fails for good, the run's messages are negatively acknowledged (the
 * broker redelivers them) and the run is forgotten so that they rebuild it with the same ids.
 */
export class DeliveryLedger implements ExportListener {
  private readonly open = new Map<string, Delivery[]>();
  private readonly exportingByTrace = new Map<string, Exporting>();
  // Ended runs whose messages are not settled yet (spans exporting, or awaiting metrics): a
  // message of such a run (its terminal one is settled just after the run ends) joins them.
  private readonly endedByRun = new Map<string, Exporting>();
  // Spans exported of traces with no ended run here (yet): an open run's, or a forgotten one's
  // still in flight when it failed (the same ids and content as its rebuild's).
  private readonly earlyTallies = new Map<string, Set<string>>();
  // Names for spans reported by count alone (each one of its own).
  private unnamedSpans = 0;
  private readonly failedTraces = new Set<string>();
  // Open runs with a saved checkpoint (messages acknowledged before the run ended) → partition.
  private readonly checkpointed = new Map<string, number | undefined>();
  private awaitingMetrics: Exporting[] = [];
  private heldCount = 0;
  private ackedCount = 0;
  private durableRuns = 0;
  // Signals whose last export failed; an outage lasts while one of them is failing.
  private readonly failing = new Set<'spans' | 'metrics'>();
  private redeliveryDelayMillis = 1000;

  constructor(
    private readonly events: LedgerEvents,
    private readonly now: () => number = Date.now,
    private readonly maxRedeliveryDelayMillis = 30_000,
  ) {}

  /** Messages held until their runs are durable. */
  get pending(): number {
    return this.heldCount;
  }

  /** Messages acknowledged: applied and durable at the collector, or not to be kept. */
  get acknowledged(): number {
    return this.ackedCount;
  }

  /** Runs whose spans and a later metric collection reached the collector. */
  get runsDelivered(): number {
    return this.durableRuns;
  }

  /** Every held message (for keep-alives). */
  *held(): Iterable<Delivery> {
    for (const list of this.open.values()) yield* list;
    for (const entry of this.endedByRun.values()) yield* entry.deliveries;
  }

  /** Messages of an open run held now. */
  heldFor(runId: string): number {
    return this.open.get(runId)?.length ?? 0;
  }

  /**
   * The run's checkpoint, saved, holds what its first `count` held messages brought: they are
   * acknowledged now, and the run is checkpointed until it is durable.
   */
  checkpointSaved(runId: string, count: number, partition: number | undefined): void {
    const ended = this.endedByRun.get(runId);
    const list = ended?.deliveries ?? this.open.get(runId);
    if (ended !== undefined) {
      ended.checkpointed = true;
      ended.partition = partition;
    } else this.checkpointed.set(runId, partition);
    if (list === undefined) return;
    const covered = list.splice(0, Math.min(count, list.length));
    for (const delivery of covered) delivery.ack();
    this.heldCount -= covered.length;
    this.ackedCount += covered.length;
  }

  /** A run rebuilt from its checkpoint (another owner acknowledged its first messages). */
  adoptCheckpointed(runId: string, partition: number | undefined): void {
    this.checkpointed.set(runId, partition);
  }

  /** Records what the sink did with a message. */
  settle(delivery: Delivery, result: HandleResult): void {
    if (result.outcome !== 'accepted' || result.runId === undefined) {
      if (delivery.skip === undefined) delivery.ack();
      else delivery.skip();
      this.ackedCount += 1;
      return;
    }
    this.heldCount += 1;
    const ended = this.endedByRun.get(result.runId);
    if (ended !== undefined) {
      ended.deliveries.push(delivery);
      return;
    }
    const list = this.open.get(result.runId);
    if (list === undefined) this.open.set(result.runId, [delivery]);
    else list.push(delivery);
  }

  /** The sink's `onRunEnd`. */
  runEnded(run: RunSummary): void {
    const entry: Exporting = {
      runId: run.runId,
      deliveries: this.open.get(run.runId) ?? [],
      spanCount: run.spanCount,
      exported: this.earlyTallies.get(run.traceId) ?? new Set(),
      endedAt: this.now(),
      checkpointed: this.checkpointed.has(run.runId),
      partition: this.checkpointed.get(run.runId),
    };
    this.checkpointed.delete(run.runId);
    this.open.delete(run.runId);
    this.earlyTallies.delete(run.traceId);
    this.endedByRun.set(run.runId, entry);
    this.exportingByTrace.set(run.traceId, entry);
    if (this.failedTraces.delete(run.traceId)) {
      // Some of its spans already failed to export. The run ends while its terminal message is
      // being handled, before that message is settled: fail it right after, with that message.
      queueMicrotask(() => {
        if (this.exportingByTrace.get(run.traceId) === entry) this.fail(run.traceId, entry);
      });
    } else this.checkSpans(run.traceId, entry);
  }

  /**
   * Spans at the collector. A run counts each of its span ids once: a failed run's spans still in
   * flight may land after it was forgotten, and its rebuild exports the same spans again, so that
   * counting both would take the rebuild for exported while some of its spans are not.
   */
  spansExported(
    perTrace: ReadonlyMap<string, number>,
    spanIds?: ReadonlyMap<string, readonly string[]>,
  ): void {
    this.redeliveryDelayMillis = 1000;
    this.recover('spans');
    for (const [traceId, count] of perTrace) {
      const entry = this.exportingByTrace.get(traceId);
      let tally = entry?.exported ?? this.earlyTallies.get(traceId);
      if (tally === undefined) this.earlyTallies.set(traceId, (tally = new Set()));
      const ids = spanIds?.get(traceId);
      if (ids !== undefined) for (const id of ids) tally.add(id);
      else for (let i = 0; i < count; i += 1) tally.add(`#${(this.unnamedSpans += 1)}`);
      if (entry !== undefined) this.checkSpans(traceId, entry);
    }
  }

  /**
   * Spans that did not reach the collector: their runs are redelivered and rebuilt. A failure
   * superseded by a later export's success (a request that hung past the collector's recovery)
   * fails its runs all the same, but opens no outage and lengthens no delay: the collector
   * answers.
   */
  spansFailed(traceIds: ReadonlySet<string>, error: Error | undefined, superseded = false): void {
    if (!superseded)
      this.outage('spans', `span export failed: ${error?.message ?? 'unknown error'}`);
    for (const traceId of traceIds) {
      const entry = this.exportingByTrace.get(traceId);
      if (entry === undefined) this.failedTraces.add(traceId);
      else this.fail(traceId, entry);
    }
    if (superseded) return;
    // The next failure waits longer: the delay grows with the outage, not with the runs it hit.
    this.redeliveryDelayMillis = Math.min(
      this.redeliveryDelayMillis * 2,
      this.maxRedeliveryDelayMillis,
    );
  }

  metricsExported(collectedAtMillis: number): void {
    this.recover('metrics');
    const durable = this.awaitingMetrics.filter((e) => e.endedAt <= collectedAtMillis);
    this.awaitingMetrics = this.awaitingMetrics.filter((e) => e.endedAt > collectedAtMillis);
    for (const entry of durable) {
      if (entry.checkpointed && this.events.checkpointedRunDurable !== undefined) {
        // Its checkpoint must say "finished" before its last messages go.
        this.events.checkpointedRunDurable(entry.runId).then(
          (done) => (done ? this.durable(entry) : this.awaitingMetrics.push(entry)),
          () => this.awaitingMetrics.push(entry),
        );
      } else this.durable(entry);
    }
  }

  private durable(entry: Exporting): void {
    if (this.endedByRun.get(entry.runId) !== entry) return;
    this.release(entry, (d) => d.ack());
    this.ackedCount += entry.deliveries.length;
    this.durableRuns += 1;
  }

  metricsFailed(error: Error | undefined, superseded = false): void {
    if (!superseded)
      this.outage('metrics', `metric export failed: ${error?.message ?? 'unknown error'}`);
  }

  /**
   * Gives up every message of partition `p` (its ownership moved): they are neither acknowledged
   * nor redelivered here, so the next owner rebuilds their runs. Returns the runs to forget.
   */
  releasePartition(p: number): string[] {
    const inPartition = (deliveries: readonly Delivery[]) =>
      deliveries.some((d) => d.partition === p);
    const runs: string[] = [];
    for (const [runId, partition] of [...this.checkpointed]) {
      if (partition !== p || this.open.has(runId)) continue;
      this.checkpointed.delete(runId);
      runs.push(runId);
    }
    for (const [runId, deliveries] of this.open) {
      if (!inPartition(deliveries) && !(this.checkpointed.get(runId) === p)) continue;
      this.checkpointed.delete(runId);
      this.open.delete(runId);
      for (const delivery of deliveries) delivery.release?.();
      this.heldCount -= deliveries.length;
      runs.push(runId);
    }
    for (const [runId, entry] of [...this.endedByRun]) {
      if (!inPartition(entry.deliveries) && !(entry.checkpointed && entry.partition === p))
        continue;
      this.release(entry, (d) => d.release?.());
      this.awaitingMetrics = this.awaitingMetrics.filter((e) => e !== entry);
      for (const [traceId, exporting] of this.exportingByTrace)
        if (exporting === entry) this.exportingByTrace.delete(traceId);
      runs.push(runId);
    }
    return runs;
  }

  private checkSpans(traceId: string, entry: Exporting): void {
    if (entry.exported.size < entry.spanCount) return;
    this.exportingByTrace.delete(traceId);
    this.awaitingMetrics.push(entry);
  }

  private fail(traceId: string, entry: Exporting): void {
    this.exportingByTrace.delete(traceId);
    // Rebuilt from its checkpoint and its redelivered messages: checkpointed again.
    if (entry.checkpointed) this.checkpointed.set(entry.runId, entry.partition);
    this.events.forgetRun(entry.runId);
    const delay = this.redeliveryDelayMillis;
    this.release(entry, (d) => d.nak(delay));
  }

  private release(entry: Exporting, settle: (d: Delivery) => void): void {
    if (this.endedByRun.get(entry.runId) === entry) this.endedByRun.delete(entry.runId);
    for (const delivery of entry.deliveries) settle(delivery);
    this.heldCount -= entry.deliveries.length;
  }

  private outage(signal: 'spans' | 'metrics', message: string): void {
    const wasFailing = this.failing.size > 0;
    this.failing.add(signal);
    if (!wasFailing) this.events.outage(message);
  }

  private recover(signal: 'spans' | 'metrics'): void {
    if (!this.failing.delete(signal) || this.failing.size > 0) return;
    this.events.recovered();
  }
}
