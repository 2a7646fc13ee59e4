/** Capacity below which a ring is never made smaller. */
const MIN_CAPACITY = 16;

/**
 * A first-in first-out queue on a ring (its capacity a power of two): `push` and `shift` move
 * nothing, and the ring doubles when full and halves when under a quarter full, so that a queue
 * that held a burst gives its memory back.
 */
export class Fifo<T> {
  private items: (T | undefined)[] = new Array<T | undefined>(MIN_CAPACITY);
  private head = 0;
  private size = 0;

  get length(): number {
    return this.size;
  }

  push(item: T): void {
    if (this.size === this.items.length) this.resize(this.items.length * 2);
    this.items[(this.head + this.size) & (this.items.length - 1)] = item;
    this.size += 1;
  }

  /** The first item, left in place; undefined when empty. */
  peek(): T | undefined {
    return this.size > 0 ? this.items[this.head] : undefined;
  }

  /** Takes the first item; undefined when empty. */
  shift(): T | undefined {
    if (this.size === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) & (this.items.length - 1);
    this.size -= 1;
    if (this.items.length > MIN_CAPACITY && this.size * 4 < this.items.length)
      this.resize(this.items.length / 2);
    return item;
  }

  clear(): void {
    this.items = new Array<T | undefined>(MIN_CAPACITY);
    this.head = 0;
    this.size = 0;
  }

  private resize(capacity: number): void {
    const items = new Array<T | undefined>(capacity);
    const mask = this.items.length - 1;
    for (let i = 0; i < this.size; i += 1) items[i] = this.items[(this.head + i) & mask];
    this.items = items;
    this.head = 0;
  }
}
