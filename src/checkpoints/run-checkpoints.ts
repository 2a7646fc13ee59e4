import type { AgentEvent } from '../events/agent-event.js';
import type { DialectName } from '../events/dialect-name.js';
import type { HandleResult } from '../sink/agent-otel-sink.js';
import type { Delivery } from '../sources/delivery.js';
import { compactEvents } from './compact-events.js';
import { DeferredReplays } from './deferred-replays.js';
import { observeCheckpointCounts } from './checkpoint-counts.js';
import type { CheckpointCounts } from './checkpoint-counts.js';
import type { RunCheckpointsOptions } from './run-checkpoints-options.js';
import { newRunLog, restoredRunLog } from './run-log.js';
import type { RunLog } from './run-log.js';

/** The scope of a partition's checkpoints in the store; `all` without partitions. */
export const checkpointScope = (partition: number | undefined) =>
  partition === undefined ? 'all' : String(partition);

/**
 * Checkpoints of open runs, so that a run's messages need not stay unacknowledged until it ends:
 * a run holding `everyMessages` messages has its events so far (compacted) saved in the broker,
 * and then those messages are acknowledged. A long run no longer holds the consumer's
 * `max_ack_pending` (or pending entries) to itself. Whoever owns the run next (another instance
 * after a takeover, this one after a restart, or this one after a failed export) rebuilds it from
 * the checkpoint and the messages delivered since. When the run is durable, its checkpoint is
 * replaced by a `finished` marker before its last messages are acknowledged, so a redelivery of
 * those never makes a second run.
 */
export class RunCheckpoints {
  private readonly logs = new Map<string, RunLog>();
  private readonly said = new Set<string>();
  // While a run is rebuilt from a log, its events are in the log already.
  private replaying = false;
  /** Checkpoints saved, runs restored from one, and saves that failed. */
  readonly counts: CheckpointCounts = { saved: 0, restored: 0, finished: 0, failed: 0, fenced: 0 };

  private saving = 0;
  private readonly now: () => number;
  /** `finished` markers being written (their runs' last messages are acknowledged after). */
  private readonly marking = new Set<Promise<boolean>>();
  private readonly deferred = new DeferredReplays((partition, runIds) =>
    this.replayRestored(partition, runIds),
  );

  constructor(private readonly options: RunCheckpointsOptions) {
    this.now = options.now ?? Date.now;
    observeCheckpointCounts(options.meter, this.counts);
  }

  /** Checkpoint saves under way. */
  get savesInFlight(): number {
    return this.saving;
  }

  /** The sink's `onAccepted`: every event taken for a run. */
  accepted(event: AgentEvent, dialect: DialectName): void {
    if (this.replaying) return;
    const log = this.logs.get(event.runId);
    if (log === undefined) this.logs.set(event.runId, newRunLog(dialect, event));
    else log.events.push(event);
  }

  /** After the ledger settled a message: checkpoints its run when it holds enough messages. */
  settled(delivery: Delivery, result: HandleResult): void {
    if (result.outcome !== 'accepted' || result.runId === undefined) return;
    const log = this.logs.get(result.runId);
    if (log === undefined) return;
    log.partition = delivery.partition;
    if (log.saving !== undefined || log.ended) return;
    if (this.options.ledger.heldFor(result.runId) >= this.options.everyMessages)
      log.saving = this.save(result.runId, log);
  }

  /**
   * Reading is paused: this consumer holds as many messages as it may. Every open run holding
   * messages is checkpointed now, whatever it holds, so that they are acknowledged and reading
   * resumes: runs that each hold less than `everyMessages` but together hold the bound wait for
   * messages not read yet, and would hold the consumer for good.
   */
  relieve(): void {
    for (const [runId, log] of this.logs)
      if (!log.ended && log.saving === undefined && this.options.ledger.heldFor(runId) > 0)
        log.saving = this.save(runId, log);
  }

  /** The run ended: a run never checkpointed needs nothing more from here. */
  runEnded(runId: string): void {
    const log = this.logs.get(runId);
    if (log === undefined) return;
    log.ended = true;
    if (log.saved === undefined && log.saving === undefined) this.logs.delete(runId);
  }

  /** The ledger's `checkpointedRunDurable`: the checkpoint becomes a `finished` marker. */
  durable(runId: string): Promise<boolean> {
    const marking = this.markFinished(runId);
    this.marking.add(marking);
    void marking.finally(() => this.marking.delete(marking));
    return marking;
  }

  private async markFinished(runId: string): Promise<boolean> {
    const log = this.logs.get(runId);
    if (log === undefined) return true;
    // A save under way would land after the marker and undo it.
    await log.saving;
    if (!this.mayWrite(log.partition)) {
      // Its partition moved on: the marker is the next owner's to write.
      this.counts.fenced += 1;
      return false;
    }
    try {
      await this.options.store.save(checkpointScope(log.partition), {
        runId,
        dialect: log.dialect,
        finished: true,
        events: [],
        metricWrites: 0,
      });
    } catch (error) {
      this.trouble('finished', 'cannot mark a finished run in its checkpoint (retrying)', error);
      return false;
    }
    this.logs.delete(runId);
    this.counts.finished += 1;
    return true;
  }

  /**
   * The run's export failed and its messages since the checkpoint will be redelivered: it is
   * rebuilt from its checkpoint, they follow. False when it has none (rebuilt from messages alone).
   */
  rebuild(runId: string): boolean {
    const log = this.logs.get(runId);
    if (log?.saved === undefined) {
      this.logs.delete(runId);
      return false;
    }
    log.events = [...log.saved];
    log.ended = false;
    this.replay(log);
    return true;
  }

  /** Resolves once no checkpoint save or `finished` marker is under way (before a hand-over). */
  async idle(): Promise<void> {
    const saves: Promise<unknown>[] = [...this.marking];
    for (const log of this.logs.values()) if (log.saving !== undefined) saves.push(log.saving);
    await Promise.all(saves);
  }

  /**
   * Partition `p` is handed over (its reading stopped, its lease still held): its open runs are
   * let go, what they recorded is exported (`exportNow`), then each is checkpointed with those
   * metric writes and every event it took, so that
   * its messages are acknowledged and the next owner rebuilds it from the checkpoint without
   * recording again what was recorded here. Resolves once the saves and the `finished` markers of
   * the runs the export made durable have landed.
   */
  async handOver(p: number, exportNow: () => Promise<void>): Promise<void> {
    await this.idle();
    const open = [...this.logs].filter(([, log]) => log.partition === p && !log.ended);
    // Let go first, so that nothing (a reorder window running out) records more after the
    // snapshot: what the run recorded here is exactly what the export below carries.
    for (const [runId, log] of open) {
      this.snapshot(runId, log);
      this.options.sink.dropRun(runId);
    }
    await exportNow();
    for (const [runId, log] of open)
      if (this.logs.get(runId) === log && !log.ended && log.saving === undefined)
        log.saving = this.save(runId, log);
    await this.idle();
  }

  /** The exporter's: a metric collection taken at `collectedAtMillis` was exported. */
  metricsExported(collectedAtMillis: number): void {
    for (const log of this.logs.values())
      if (log.madeBy !== undefined && log.madeBy.at <= collectedAtMillis) {
        log.durableWrites = Math.max(log.durableWrites, log.madeBy.writes);
        log.madeBy = undefined;
      }
  }

  /** The run's partition moved away: its next owner rebuilds it from the checkpoint. */
  drop(runId: string): void {
    this.logs.delete(runId);
  }

  /**
   * Rebuilds the open runs of a scope from their checkpoints and takes its finished runs as
   * finished, before its messages are read.
   */
  async restore(partition: number | undefined): Promise<void> {
    const { checkpoints, unreadable } = await this.options.store.load(checkpointScope(partition));
    const restored: string[] = [];
    for (const { key, problem } of unreadable)
      this.trouble('unreadable', `skipped an unreadable checkpoint ${key}: ${problem}`);
    for (const checkpoint of checkpoints) {
      if (checkpoint.finished) {
        this.options.sink.markFinished(checkpoint.runId);
        continue;
      }
      const events = [...checkpoint.events];
      const log = restoredRunLog(checkpoint, events, partition);
      this.logs.set(checkpoint.runId, log);
      this.options.ledger.adoptCheckpointed(checkpoint.runId, partition);
      this.counts.restored += 1;
      if (partition === undefined) this.replay(log);
      else restored.push(checkpoint.runId);
    }
    if (partition !== undefined && restored.length > 0) this.deferred.defer(partition, restored);
  }

  /** Before a message of `partition` is applied: its restored runs first. */
  beforeMessage(partition: number | undefined): void {
    if (partition !== undefined) this.deferred.replayNow(partition);
  }

  async close(): Promise<void> {
    this.deferred.close();
    await this.options.store.close();
  }

  private replayRestored(partition: number, runIds: readonly string[]): void {
    for (const runId of runIds) {
      const log = this.logs.get(runId);
      // Dropped meanwhile (the partition moved on), or restored again: not this replay's.
      if (log?.saved === undefined || log.partition !== partition) continue;
      this.replay(log);
    }
  }

  /** Notes the writes the run has made by now (the next export makes them durable). */
  private snapshot(runId: string, log: RunLog): void {
    const writes = this.options.sink.metricWritesOf(runId);
    if (writes !== undefined && writes > log.durableWrites) log.madeBy = { at: this.now(), writes };
  }

  private mayWrite(partition: number | undefined): boolean {
    return partition === undefined || (this.options.mayWrite?.(partition) ?? true);
  }

  /** Rebuilds a run from its saved checkpoint, by the partition its events arrive by. */
  private replay(log: RunLog): void {
    this.replaying = true;
    try {
      this.options.sink.restoreRun(log.saved ?? [], log.dialect, log.savedWrites, log.partition);
    } finally {
      this.replaying = false;
    }
  }

  private async save(runId: string, log: RunLog): Promise<void> {
    this.saving += 1;
    const events = compactEvents(log.events, this.options.content);
    log.events = [...events];
    const covered = this.options.ledger.heldFor(runId);
    // A checkpoint says only what was exported was made: a crash before the next metric export
    // loses nothing, what was made since is made again by the next owner.
    const metricWrites = log.durableWrites;
    this.snapshot(runId, log);
    try {
      if (!this.mayWrite(log.partition)) {
        // Its partition moved on (or may have): its messages are the next owner's.
        this.counts.fenced += 1;
        return;
      }
      await this.options.store.save(checkpointScope(log.partition), {
        runId,
        dialect: log.dialect,
        finished: false,
        events,
        metricWrites,
      });
      this.counts.saved += 1;
      // Dropped meanwhile (its partition moved): its messages are the next owner's.
      if (this.logs.get(runId) !== log) return;
      log.saved = events;
      log.savedWrites = metricWrites;
      this.options.ledger.checkpointSaved(runId, covered, log.partition);
    } catch (error) {
      this.counts.failed += 1;
      this.trouble('save', 'cannot save a run checkpoint; its messages stay held', error);
    } finally {
      log.saving = undefined;
      this.saving -= 1;
      if (this.logs.get(runId) === log && log.ended && log.saved === undefined)
        this.logs.delete(runId);
    }
  }

  private trouble(kind: string, message: string, error?: unknown): void {
    if (this.said.has(kind)) return;
    this.said.add(kind);
    const why = error instanceof Error ? `: ${error.message}` : '';
    this.options.report(`${message}${why} (said once)`);
  }
}
