import type { AgentEvent } from '../../events/agent-event.js';
import { eventFingerprint } from './event-fingerprint.js';
import type { Printed } from './event-fingerprint.js';

/**
 * Fingerprints of the events a run applied at its latest time, to recognise a redelivered one.
 * Most events have a time of their own: the first event is kept inline (the event alone, nothing
 * of its input) and its fingerprint is worked out only if another event of its time comes; a set
 * is made only when several events share the time (an open run then costs a few bytes, not a set).
 */
export class AppliedPrints {
  private first: AgentEvent | undefined;
  private firstPrint: number | undefined;
  private more: Set<number> | undefined;

  get size(): number {
    return this.first === undefined ? 0 : 1 + (this.more?.size ?? 0);
  }

  has(fingerprint: number): boolean {
    return this.printOfFirst() === fingerprint || (this.more?.has(fingerprint) ?? false);
  }

  /** Keeps the first event of a time itself (its fingerprint asked for only if another comes). */
  add(applied: Printed & { readonly event: AgentEvent }): void {
    if (this.first === undefined) {
      this.first = applied.event;
      return;
    }
    const fingerprint = applied.fingerprint;
    if (this.printOfFirst() !== fingerprint) (this.more ??= new Set()).add(fingerprint);
  }

  clear(): void {
    this.first = undefined;
    this.firstPrint = undefined;
    this.more = undefined;
  }

  private printOfFirst(): number | undefined {
    if (this.first === undefined) return undefined;
    return (this.firstPrint ??= eventFingerprint(this.first));
  }
}
