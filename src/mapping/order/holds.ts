/**
 * The holds on applying events by time (see `ReorderBuffer.holdFor`), each with its own end: a
 * consumer that may have lost messages in flight holds from the moment it may have, and lets go
 * once it knows (its broker holds no message it did not hand over), without waiting out a hold
 * sized for the worst case, and without ending the holds of other consumers of the same bridge.
 */
export class Holds {
  /** Ends (the clock's time) of the holds not let go of; ended ones are dropped as found. */
  private readonly ends = new Set<{ readonly until: number }>();

  /** Holds until `until`, or until the function returned is called, whichever comes first. */
  add(until: number): () => void {
    const hold = { until };
    this.ends.add(hold);
    return () => {
      this.ends.delete(hold);
    };
  }

  /** Whether a hold is on at `now`. */
  on(now: number): boolean {
    for (const hold of this.ends) {
      if (now < hold.until) return true;
      this.ends.delete(hold);
    }
    return false;
  }
}
