/** What the recency list links: each item holds its neighbours (no node per item, no map). */
export interface Recent<T> {
  /** The item used just before this one; undefined for the least recent. */
  lessRecent: T | undefined;
  /** The item used just after this one; undefined for the most recent. */
  moreRecent: T | undefined;
}

/**
 * Items in the order they were last used, least recent first: `use` moves an item to the end in
 * O(1) by relinking its neighbours (where re-inserting into a `Map` rehashes its key twice and
 * leaves a hole behind).
 */
export class RecencyList<T extends Recent<T>> {
  private least: T | undefined;
  private most: T | undefined;

  /** The least recently used item. */
  get leastRecent(): T | undefined {
    return this.least;
  }

  /** Adds `item` (not in the list) as the most recent. */
  add(item: T): void {
    item.lessRecent = this.most;
    item.moreRecent = undefined;
    if (this.most === undefined) this.least = item;
    else this.most.moreRecent = item;
    this.most = item;
  }

  /** Makes `item` (in the list) the most recent. */
  use(item: T): void {
    if (item === this.most) return;
    this.remove(item);
    this.add(item);
  }

  /** Takes `item` (in the list) out. */
  remove(item: T): void {
    const { lessRecent, moreRecent } = item;
    if (lessRecent === undefined) this.least = moreRecent;
    else lessRecent.moreRecent = moreRecent;
    if (moreRecent === undefined) this.most = lessRecent;
    else moreRecent.lessRecent = lessRecent;
    item.lessRecent = undefined;
    item.moreRecent = undefined;
  }

  /** Every item, least recent first (taking the current item out while iterating is safe). */
  *[Symbol.iterator](): IterableIterator<T> {
    for (let item = this.least; item !== undefined;) {
      const next = item.moreRecent;
      yield item;
      item = next;
    }
  }
}
