// The order in which a signal's exports began, to tell a failure the collector has since
// answered past.
/**
 * Numbers exports as they begin, and tells whether one that failed was superseded: an export
 * begun after it has succeeded since.
 */
export class ExportOrder {
  private begun = 0;
  private newestSucceeded = 0;

  begin(): number {
    return (this.begun += 1);
  }

  succeeded(which: number): void {
    this.newestSucceeded = Math.max(this.newestSucceeded, which);
  }

  superseded(which: number): boolean {
    return which < this.newestSucceeded;
  }
}
