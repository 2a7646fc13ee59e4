import type { HandleResult } from '../sink/agent-otel-sink.js';
import type { RunSummary } from '../mapping/tracker-context.js';
import type { ExportListener, SpansByTrace } from '../telemetry/export/export-watcher.js';
import { AwaitedSpans } from './awaited-spans.js';
import type { AwaitingRun } from './awaited-spans.js';
import type { Delivery } from './delivery.js';
import { ExportOutage } from './export-outage.js';
import type { OutageNews } from './export-outage.js';

export interface LedgerEvents extends OutageNews {
  /** A run's export failed: its messages are redelivered, so it must be rebuilt from them. */
  forgetRun(runId: string): void;
  /**
   * A checkpointed run is durable: resolves true once its checkpoint says so (its last messages
   * are acknowledged only then); false to try again at the next metric export.
   */
  checkpointedRunDurable?(runId: string): Promise<boolean>;
}

interface Exporting extends AwaitingRun {
  readonly runId: string;
  readonly deliveries: Delivery[];
  /** Still awaiting its spans: neither all at the collector nor failed. */
  exporting: boolean;
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
  // Runs open here (held messages, or a saved checkpoint) → when first heard of, oldest first.
  private readonly openedAt = new Map<string, number>();
  // Ended runs whose messages are not settled yet (spans exporting, or awaiting metrics): a
  // message of such a run (its terminal one is settled just after the run ends) joins them.
  private readonly endedByRun = new Map<string, Exporting>();
  private readonly spans = new AwaitedSpans<Exporting>();
  // Open runs with a saved checkpoint (messages acknowledged before the run ended) → partition.
  private readonly checkpointed = new Map<string, number | undefined>();
  private awaitingMetrics: Exporting[] = [];
  private heldCount = 0;
  private ackedCount = 0;
  private durableRuns = 0;
  private readonly outage: ExportOutage;

  /** `maxRedeliveryDelayMillis`: the longest a failed run's messages wait to be redelivered. */
  constructor(
    private readonly events: LedgerEvents,
    private readonly now: () => number = Date.now,
    private readonly maxRedeliveryDelayMillis = 30_000,
  ) {
    this.outage = new ExportOutage(events, maxRedeliveryDelayMillis);
  }

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
    } else {
      this.checkpointed.set(runId, partition);
      this.opened(runId);
    }
    if (list === undefined) return;
    const covered = list.splice(0, Math.min(count, list.length));
    for (const delivery of covered) delivery.ack();
    this.heldCount -= covered.length;
    this.ackedCount += covered.length;
  }

  /** A run rebuilt from its checkpoint (another owner acknowledged its first messages). */
  adoptCheckpointed(runId: string, partition: number | undefined): void {
    this.checkpointed.set(runId, partition);
    this.opened(runId);
  }

  /** Spans awaited and what became of spans of no ended run, remembered now (for tests). */
  get spansRemembered(): number {
    return this.spans.remembered;
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
    if (list === undefined) {
      this.open.set(result.runId, [delivery]);
      this.opened(result.runId);
    } else list.push(delivery);
  }

  /** The sink's `onRunEnd`. */
  runEnded(run: RunSummary): void {
    const entry: Exporting = {
      runId: run.runId,
      traceId: run.traceId,
      spanIds: run.spanIds,
      missing: 0,
      exporting: true,
      deliveries: this.open.get(run.runId) ?? [],
      endedAt: this.now(),
      checkpointed: this.checkpointed.has(run.runId),
      partition: this.checkpointed.get(run.runId),
    };
    this.checkpointed.delete(run.runId);
    this.open.delete(run.runId);
    this.openedAt.delete(run.runId);
    this.endedByRun.set(run.runId, entry);
    if (this.spans.await(entry, entry.endedAt)) {
      // Some of its spans already failed to export. The run ends while its terminal message is
      // being handled, before that message is settled: fail it right after, with that message.
      queueMicrotask(() => this.fail(entry));
    } else if (entry.missing === 0) this.spansDone(entry);
  }

  /**
   * Spans at the collector, named per trace. A run counts each of its own span ids once: the
   * runs of one trace (a parent and its sub-agents) each await their own spans, and a failed
   * run's spans still in flight may land after it was forgotten while its rebuild exports the
   * same spans again.
   */
  spansExported(spans: SpansByTrace): void {
    this.outage.exported('spans');
    const now = this.now();
    for (const [traceId, ids] of spans)
      this.spans.exported(traceId, ids, now, (entry) => this.spansDone(entry));
  }

  /**
   * Spans that did not reach the collector: their runs are redelivered and rebuilt. A failure
   * superseded by a later export's success (a request that hung past the collector's recovery)
   * fails its runs all the same, but opens no outage and lengthens no delay: the collector
   * answers.
   */
  spansFailed(spans: SpansByTrace, error: Error | undefined, superseded = false): void {
    this.outage.failed('spans', `span export failed: ${errorText(error)}`, superseded);
    const now = this.now();
    for (const [traceId, ids] of spans)
      this.spans.failed(traceId, ids, now, (entry) => this.fail(entry));
    // The next failure waits longer: the delay grows with the outage, not with the runs it hit.
    this.outage.lengthen(superseded);
  }

  metricsExported(collectedAtMillis: number): void {
    this.outage.exported('metrics');
    this.forgetStaleFates();
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
    this.outage.failed('metrics', `metric export failed: ${errorText(error)}`, superseded);
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
      this.openedAt.delete(runId);
      runs.push(runId);
    }
    for (const [runId, deliveries] of this.open) {
      if (!inPartition(deliveries) && !(this.checkpointed.get(runId) === p)) continue;
      this.checkpointed.delete(runId);
      this.open.delete(runId);
      this.openedAt.delete(runId);
      for (const delivery of deliveries) delivery.release?.();
      this.heldCount -= deliveries.length;
      runs.push(runId);
    }
    for (const [runId, entry] of [...this.endedByRun]) {
      if (!inPartition(entry.deliveries) && !(entry.checkpointed && entry.partition === p))
        continue;
      if (entry.exporting) {
        entry.exporting = false;
        this.spans.release(entry);
      }
      this.release(entry, (d) => d.release?.());
      this.awaitingMetrics = this.awaitingMetrics.filter((e) => e !== entry);
      runs.push(runId);
    }
    return runs;
  }

  /** Every span of the run is at the collector: it awaits a metric export. */
  private spansDone(entry: Exporting): void {
    entry.exporting = false;
    this.awaitingMetrics.push(entry);
  }

  private fail(entry: Exporting): void {
    if (!entry.exporting) return;
    entry.exporting = false;
    this.spans.release(entry);
    // Rebuilt from its checkpoint and its redelivered messages: checkpointed again.
    if (entry.checkpointed) this.checkpointed.set(entry.runId, entry.partition);
    this.events.forgetRun(entry.runId);
    const delay = this.outage.redeliveryDelayMillis;
    this.release(entry, (d) => d.nak(delay));
  }

  private opened(runId: string): void {
    if (!this.openedAt.has(runId)) this.openedAt.set(runId, this.now());
  }

  /**
   * Forgets what became of spans of no run open here, noted before every open run began and
   * longer ago than twice the longest redelivery delay (so that a rebuild finds what its failed
   * build's spans still in flight became): no run that will end here owes them (a rebuild exports
   * its spans again). Freed so, they cannot pile up: spans exported once more after their run was
   * done, or spans of a run whose partition moved away.
   */
  private forgetStaleFates(): void {
    const oldestOpen = this.openedAt.values().next().value ?? Infinity;
    this.spans.sweep(Math.min(oldestOpen, this.now() - 2 * this.maxRedeliveryDelayMillis));
  }

  private release(entry: Exporting, settle: (d: Delivery) => void): void {
    if (this.endedByRun.get(entry.runId) === entry) this.endedByRun.delete(entry.runId);
    for (const delivery of entry.deliveries) settle(delivery);
    this.heldCount -= entry.deliveries.length;
  }
}

const errorText = (error: Error | undefined) => error?.message ?? 'unknown error';
