/**
 * Fingerprints of held events, counted: two held events may share one (two copies of an event
 * held before either was checked against the other), and one stays known until both are taken.
 * A fingerprint held once is only in the set, so holding and letting go of one costs a single
 * set operation each (the set's size tells whether an add was new); a second copy is counted
 * apart.
 */
export class PrintCounts {
  private readonly once = new Set<number>();
  /** Copies beyond the first, for the fingerprints held more than once. */
  private again: Map<number, number> | undefined;

  has(print: number): boolean {
    return this.once.has(print);
  }

  add(print: number): void {
    const size = this.once.size;
    this.once.add(print);
    if (this.once.size !== size) return;
    const again = (this.again ??= new Map<number, number>());
    again.set(print, (again.get(print) ?? 0) + 1);
  }

  /** Lets go of one held copy. */
  delete(print: number): void {
    const again = this.again;
    const copies = again?.get(print);
    if (copies === undefined) this.once.delete(print);
    else if (copies > 1) again!.set(print, copies - 1);
    else if (again!.size === 1) this.again = undefined;
    else again!.delete(print);
  }
}
