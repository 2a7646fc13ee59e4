import type { Printed } from './event-fingerprint.js';

/**
 * Fingerprints of the events a run applied at its latest time, to recognise a redelivered one.
 * Most events have a time of their own: the first event is kept inline and its fingerprint is
 * worked out only if another event of its time comes; a set is made only when several events
 * share the time (an open run then costs a few bytes, not a set).
 */
export class AppliedPrints {
  private first: Printed | undefined;
  private more: Set<number> | undefined;

  get size(): number {
    return this.first === undefined ? 0 : 1 + (this.more?.size ?? 0);
  }

  has(fingerprint: number): boolean {
    return this.first?.fingerprint === fingerprint || (this.more?.has(fingerprint) ?? false);
  }

  add(event: Printed): void {
    if (this.first === undefined) this.first = event;
    else if (this.first.fingerprint !== event.fingerprint)
      (this.more ??= new Set()).add(event.fingerprint);
  }

  clear(): void {
    this.first = undefined;
    this.more = undefined;
  }
}
