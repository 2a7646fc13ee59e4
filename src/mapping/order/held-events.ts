import type { HrTime } from '@opentelemetry/api';
import { compareHrTime } from '../../events/hr-time.js';
import { compareHeld, pop, push } from './held-heap.js';
import type { Printed } from './event-fingerprint.js';
import type { Held } from './held-heap.js';
import { PrintCounts } from './print-counts.js';

/** Consumed entries at the front of `ordered` are cut off past this many (and half of it). */
const COMPACT_AFTER = 64;
/** Held events of one time a lookup walks before the in-order ones are counted by fingerprint. */
const SCAN_LIMIT = 16;
/** A displaced event is put in place among this many of the latest held; further, on the heap. */
const NEAR_TAIL = 32;

/**
 * The events of one run held for reordering, taken earliest first by (time, arrival).
 *
 * Most events arrive in their run's order: those are appended to a sorted list, and taken from
 * its front, with no heap work and no set of fingerprints. An event displaced by a few positions
 * (earlier than some of the latest held) is put in place in that list, found and moved within
 * them. One displaced further goes to a heap of its own, whose fingerprints are counted for the
 * duplicate check; the earliest of both fronts is taken next. Every operation is O(1) in order,
 * O(NEAR_TAIL) displaced a little and O(log n) displaced further, so no arrival order makes
 * holding quadratic. The duplicate check of an in-order event looks among those held at its
 * time; once that takes a long walk (a storm of events sharing one timestamp), the in-order events
 * are counted by fingerprint until none is held, so no run of equal times makes it quadratic
 * either.
 */
export class HeldEvents {
  /** By (time, arrival): in-order arrivals appended, displaced ones put in place; live from `head`. */
  private ordered: Held[] = [];
  private head = 0;
  /** Displaced events: a min-heap by (time, arrival). */
  private displaced: Held[] | undefined;
  private displacedPrints: PrintCounts | undefined;
  /** The latest time among the displaced events held (an upper bound while any is held). */
  private displacedLatest: HrTime | undefined;
  /** The in-order events' fingerprints: kept only after a long walk. */
  private orderedPrints: PrintCounts | undefined;

  get length(): number {
    return this.ordered.length - this.head + (this.displaced?.length ?? 0);
  }

  add(held: Held): void {
    const ordered = this.ordered;
    const head = this.head;
    const end = ordered.length;
    // In order (the most): after the latest held. Displaced: put in place among the latest
    // NEAR_TAIL held (a few moves, and no fingerprints to count); further back, on the heap.
    let at = end;
    const floor = Math.max(head, end - NEAR_TAIL);
    while (at > floor && compareHeld(ordered[at - 1]!, held) > 0) at -= 1;
    if (at === end) ordered.push(held);
    else if (at === head && head > 0) ordered[(this.head = head - 1)] = held;
    else if (at === head || compareHeld(ordered[at - 1]!, held) <= 0) {
      for (let i = end; i > at; i -= 1) ordered[i] = ordered[i - 1]!;
      ordered[at] = held;
    } else at = -1;
    if (at >= 0) {
      this.orderedPrints?.add(held.fingerprint);
      return;
    }
    push((this.displaced ??= []), held);
    (this.displacedPrints ??= new PrintCounts()).add(held.fingerprint);
    if (this.displacedLatest === undefined || compareHrTime(held.time, this.displacedLatest) > 0)
      this.displacedLatest = held.time;
  }

  /** The earliest held event; undefined when none is held. */
  peek(): Held | undefined {
    const first = this.head < this.ordered.length ? this.ordered[this.head] : undefined;
    const other = this.displaced?.[0];
    if (other === undefined) return first;
    return first === undefined || compareHeld(other, first) < 0 ? other : first;
  }

  /** Takes the earliest held event; undefined when none is held. */
  shift(): Held | undefined {
    const earliest = this.peek();
    if (earliest === undefined) return undefined;
    if (earliest === this.displaced?.[0]) {
      pop(this.displaced);
      this.displacedPrints!.delete(earliest.fingerprint);
      if (this.displaced.length === 0) this.displacedLatest = undefined;
      return earliest;
    }
    const ordered = this.ordered;
    ordered[this.head] = undefined as unknown as Held;
    this.head += 1;
    this.orderedPrints?.delete(earliest.fingerprint);
    if (this.head === ordered.length) {
      ordered.length = 0;
      this.head = 0;
      this.orderedPrints = undefined;
    } else if (this.head > COMPACT_AFTER && this.head * 2 > ordered.length) {
      ordered.splice(0, this.head);
      this.head = 0;
    }
    return earliest;
  }

  /**
   * Whether an event of this time and fingerprint is held. A fingerprint covers the event's time
   * (`eventFingerprint`), so a displaced one is looked up by its fingerprint alone. The event's
   * fingerprint is asked for only where some held event may be the same one.
   */
  has(time: HrTime, event: Printed): boolean {
    // A displaced event can be this one only if it is not earlier than this one's time.
    if (
      this.displacedLatest !== undefined &&
      compareHrTime(time, this.displacedLatest) <= 0 &&
      this.displacedPrints?.has(event.fingerprint) === true
    )
      return true;
    const ordered = this.ordered;
    let i = ordered.length - 1;
    // In order, an event is never earlier than the last one held: at most the same time.
    if (i < this.head || compareHrTime(ordered[i]!.time, time) < 0) return false;
    const fingerprint = event.fingerprint;
    if (this.orderedPrints !== undefined) return this.orderedPrints.has(fingerprint);
    let lo = this.head;
    let hi = i;
    // The first held event not earlier than `time`.
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareHrTime(ordered[mid]!.time, time) < 0) lo = mid + 1;
      else hi = mid;
    }
    for (i = lo; i < ordered.length && i - lo < SCAN_LIMIT; i += 1) {
      const held = ordered[i]!;
      if (compareHrTime(held.time, time) !== 0) return false;
      if (held.fingerprint === fingerprint) return true;
    }
    if (i === ordered.length) return false;
    return this.countOrderedPrints().has(fingerprint);
  }

  private countOrderedPrints(): PrintCounts {
    const prints = new PrintCounts();
    for (let i = this.head; i < this.ordered.length; i += 1)
      prints.add(this.ordered[i]!.fingerprint);
    return (this.orderedPrints = prints);
  }

  /** Takes every held event, earliest first. */
  takeAll(): Held[] {
    const all: Held[] = [];
    for (let held = this.shift(); held !== undefined; held = this.shift()) all.push(held);
    return all;
  }
}
