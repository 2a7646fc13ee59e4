import type { AgentEvent } from '../../events/agent-event.js';
import { isTerminal } from '../../events/agent-event.js';
import { compareHrTime } from '../../events/hr-time.js';
import type { DialectName } from '../../events/dialect-name.js';
import { compareHeld } from './held-heap.js';
import type { Held, Settler } from './held-heap.js';
import { HeldEvents } from './held-events.js';
import { Lanes } from './lane.js';
import type { Lane } from './lane.js';
import { applyInOrder, isSeen, newPendingRun, Pending } from './pending-run.js';
import type { PendingRun } from './pending-run.js';

export type { Settler } from './held-heap.js';
import type { OfferOutcome, ReorderOptions } from './reorder-options.js';
import { duplicateEvent, HELD, lateForWindow, secondTerminal } from './reorder-outcomes.js';
import type { RunTracker } from '../run-tracker.js';

/**
 * Puts each run's events back into the order of their own timestamps before the tracker applies
 * them, so that a run's trace is a function of the set of its events, not of their arrival order:
 * - every event is held for `holdMillis` (or until its run holds more than `holdEvents`), then
 *   applied earliest first — an event displaced by less than that comes back into place, and the
 *   events before a late `RunStarted` wait for it instead of opening a synthesized root;
 * - the terminal event is kept aside and applied last, `graceMillis` after it arrived, so that
 *   what the runtime published just before it (usage, a doom loop, a tool's end) still lands;
 * - an event identical to one already seen for its run (type, time to the nanosecond, content)
 *   is a duplicate; equal timestamps alone are normal;
 * - an event earlier than one already applied is counted as `late` (`reorder_window`), and one
 *   for a run that has finished after its grace as `late` (`run_finished`).
 * Memory is bounded: `holdEvents` per run, `maxHeldEvents` in all, `seenPerRun` fingerprints.
 * Time is counted per lane (see `Lane`): a run's events wait for their own way in only.
 */
export class ReorderBuffer {
  private readonly runs = new Map<string, PendingRun>();
  private readonly lanes = new Lanes<PendingRun>();
  /**
   * Input events taken, those replayed from a checkpoint not counted: a grace period counted in
   * events passes with new input only, never with a run rebuilt (another's, or its own).
   */
  private inputs = 0;
  /** Set while a checkpointed run is replayed. */
  replaying = false;
  private seq = 0;
  private heldCount = 0;
  /**
   * The time through which everything published upstream has reached this bridge by a lane (a
   * router's drain marks): its held events and grace periods count time only up to it. Infinity:
   * the clock's.
   */
  readThrough: (lane: number) => number = () => Infinity;

  constructor(
    private readonly tracker: RunTracker,
    private readonly options: ReorderOptions,
  ) {}

  /** Events held now (terminal events included). */
  get held(): number {
    return this.heldCount;
  }

  /** Runs with held events or within their grace period. */
  get pendingRuns(): number {
    return this.runs.size;
  }

  /**
   * Takes one event of a run. `held` in the answer: the event waits for its turn, and `settle`
   * is told what became of it then.
   */
  offer(
    event: AgentEvent,
    dialect: DialectName,
    settler?: Settler,
    index = 0,
    lane = 0,
  ): OfferOutcome {
    const held = new Pending(event, dialect, settler, index);
    const { runId } = held;
    const finished = this.tracker.afterFinish(event, held, runId);
    if (finished !== undefined) return finished as OfferOutcome;
    let run = this.runs.get(runId);
    if (run === undefined) {
      this.makeRoom();
      run = newPendingRun(runId, this.lanes.get(lane));
      this.runs.set(runId, run);
    } else if (isSeen(run, held)) {
      return duplicateEvent(event);
    }
    const terminal = isTerminal(event);
    if (
      !terminal &&
      run.appliedUpTo !== undefined &&
      compareHrTime(held.time, run.appliedUpTo) < 0
    ) {
      return lateForWindow(event, this.options.limitHit);
    }
    const now = this.options.now();
    if (!this.replaying) this.inputs += 1;
    held.seq = this.seq += 1;
    held.arrivedAt = now;
    if (terminal) {
      if (run.terminal === undefined) {
        run.lane.closing.push({ run, arrivedAt: now, input: this.inputs });
        this.heldCount += 1;
      } else if (compareHeld(held, run.terminal) >= 0) {
        return secondTerminal(event, 'which already ended');
      }
      // Of two different terminal events, the earlier one ends the run, whichever came first.
      run.terminal?.settler?.settled(
        run.terminal.index,
        secondTerminal(run.terminal.event, 'which ended earlier'),
      );
      run.terminal = held;
      if (this.options.graceByEvents) this.closeDue(now);
      else if (this.options.graceMillis === 0) this.tick();
      return HELD;
    }
    if (this.options.holdMillis === 0 && (run.held?.length ?? 0) === 0) {
      // Nothing to wait for: applied at once, and the tracker's answer is the caller's.
      const outcome = applyInOrder(run, held, this.tracker, this.options);
      if (run.terminal === undefined && !this.tracker.isOpen(run.runId))
        this.runs.delete(run.runId);
      return outcome as OfferOutcome;
    }
    (run.held ??= new HeldEvents()).add(held);
    this.heldCount += 1;
    run.lane.arrivals.push(run.runId, now);
    if (run.held.length > this.options.holdEvents) this.applyNext(run);
    if (this.heldCount > this.options.maxHeldEvents) this.relieve();
    if (this.options.graceByEvents) this.closeDue(now);
    return HELD;
  }

  /**
   * Applies what has been held long enough and ends runs whose grace period passed, each lane by
   * its own clock.
   */
  tick(): void {
    const clock = this.options.now();
    if (this.lanes.allHeld(clock)) return;
    for (const lane of this.lanes.all) {
      if (lane.holds.on(clock)) continue;
      const now = Math.min(clock, this.readThrough(lane.id));
      this.applyHeldSince(lane, now - this.options.holdMillis);
      this.closeDue(now, [lane]);
    }
  }

  /**
   * Events may be on their way back by `lane` (every lane: undefined), older than events held now
   * (a consumer's messages lost in flight, redelivered after the ack wait): nothing of it is
   * applied by time, and no run of it ends its grace period, for `millis` or until the function
   * returned is called. The held-events bound holds.
   */
  holdFor(millis: number, lane?: number): () => void {
    return this.lanes.holdFor(this.options.now() + millis, lane);
  }

  private applyHeldSince(lane: Lane<PendingRun>, holdUntil: number): void {
    const { arrivals } = lane;
    for (
      let arrivedAt = arrivals.firstArrivedAt();
      arrivedAt !== undefined && arrivedAt <= holdUntil;
      arrivedAt = arrivals.firstArrivedAt()
    ) {
      const run = this.runs.get(arrivals.shift()!);
      if (run?.held === undefined || run.lane !== lane) continue;
      for (let next = run.held.peek(); next !== undefined; next = run.held.peek()) {
        if (next.arrivedAt > holdUntil) break;
        this.applyNext(run);
      }
    }
  }

  /**
   * A new run is coming and the open runs are at their bound: a run in its grace period (it has
   * ended; only late arrivals are awaited) ends now rather than an open one being abandoned.
   */
  private makeRoom(): void {
    for (
      let lane = this.lanes.longestClosing();
      lane !== undefined && this.runs.size >= this.options.maxOpenRuns;
      lane = this.lanes.longestClosing()
    ) {
      const entry = lane.closing.shift()!;
      if (this.runs.get(entry.run.runId) !== entry.run) continue;
      this.options.limitHit(
        'open_runs',
        `${this.options.maxOpenRuns} runs are open; ended runs leave their grace period early (maxOpenRuns)`,
      );
      this.close(entry.run);
    }
  }

  /** Ends the runs of `lanes` whose grace period passed (in wall-clock time, or in input events). */
  private closeDue(now: number, lanes: readonly Lane<PendingRun>[] = this.lanes.all): void {
    const graceUntil = now - this.options.graceMillis;
    const graceInput = this.options.graceByEvents
      ? this.inputs - this.options.graceEvents
      : -Infinity;
    for (const lane of lanes)
      for (
        let due = lane.nextDue(graceUntil, graceInput);
        due;
        due = lane.nextDue(graceUntil, graceInput)
      )
        this.close(due.run);
  }

  /**
   * Applies every held event in order and ends the runs whose terminal event arrived (end of
   * input, shutdown): nothing more is coming, so nothing is worth waiting for.
   */
  drain(): void {
    for (const run of [...this.runs.values()]) this.close(run);
    this.lanes.clear();
  }

  /**
   * Ends now every run whose terminal event arrived, its held events applied first (a flush: the
   * caller wants what has ended exported, and gives up waiting for late arrivals). Open runs keep
   * their held events.
   */
  closeEnded(): number {
    let closed = 0;
    for (const { closing } of this.lanes.all)
      for (let entry = closing.shift(); entry !== undefined; entry = closing.shift()) {
        if (this.runs.get(entry.run.runId) !== entry.run) continue;
        this.close(entry.run);
        closed += 1;
      }
    return closed;
  }

  /**
   * The tracker ended a run without its terminal event (idle, capacity, end of input): what is
   * still held for it can no longer be applied, and is counted as late.
   */
  runAbandoned(runId: string): void {
    const run = this.runs.get(runId);
    if (run === undefined) return;
    this.runs.delete(runId);
    const left = run.held?.takeAll() ?? [];
    if (run.terminal !== undefined) left.push(run.terminal);
    this.heldCount -= left.length;
    for (const held of left) this.settled(run, held);
  }

  /** Lets a run go (see `RunTracker.discard`): what is held for it is dropped unsettled. */
  discard(runId: string): void {
    const run = this.runs.get(runId);
    if (run === undefined) return;
    this.runs.delete(runId);
    this.heldCount -= (run.held?.length ?? 0) + (run.terminal === undefined ? 0 : 1);
  }

  private close(run: PendingRun): void {
    if (this.runs.get(run.runId) !== run) return;
    while ((run.held?.length ?? 0) > 0) this.applyNext(run);
    this.runs.delete(run.runId);
    const terminal = run.terminal;
    if (terminal === undefined) return;
    this.heldCount -= 1;
    this.settled(run, terminal);
  }

  private applyNext(run: PendingRun): void {
    const next = run.held!.shift()!;
    this.heldCount -= 1;
    this.settled(run, next);
  }

  /** Applies a held event and settles it. */
  private settled(run: PendingRun, held: Held): void {
    const outcome = applyInOrder(run, held, this.tracker, this.options);
    held.settler?.settled(held.index, outcome);
  }

  /** Over the global bound: the run held longest gives up its earliest event. */
  private relieve(): void {
    this.options.limitHit(
      'held_events',
      `more than ${this.options.maxHeldEvents} events were held for reordering; the longest-held are applied early`,
    );
    for (
      let lane = this.lanes.longestHeld();
      lane !== undefined && this.heldCount > this.options.maxHeldEvents;
      lane = this.lanes.longestHeld()
    ) {
      const run = this.runs.get(lane.arrivals.shift()!);
      if (run?.held !== undefined && run.held.length > 0) this.applyNext(run);
    }
  }
}
