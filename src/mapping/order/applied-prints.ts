/**
 * Fingerprints of the events a run applied at its latest time, to recognise a redelivered one.
 * Most events have a time of their own: the first fingerprint is kept inline, and a set is made
 * only when several events share the time (an open run then costs a few bytes, not a set).
 */
export class AppliedPrints {
  private first: number | undefined;
  private more: Set<number> | undefined;

  get size(): number {
    return this.first === undefined ? 0 : 1 + (this.more?.size ?? 0);
  }

  has(fingerprint: number): boolean {
    return this.first === fingerprint || (this.more?.has(fingerprint) ?? false);
  }

  add(fingerprint: number): void {
    if (this.first === undefined) this.first = fingerprint;
    else if (this.first !== fingerprint) (this.more ??= new Set()).add(fingerprint);
  }

  clear(): void {
    this.first = undefined;
    this.more = undefined;
  }
}
