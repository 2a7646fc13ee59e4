/**
 * Requests per second per client (a token bucket per remote address, `burst` deep). Remembers at
 * most `maxClients` clients; the one seen longest ago is forgotten first.
 */
export class ClientRateLimit {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly burst: number;

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
    private readonly maxClients = 10_000,
  ) {
    this.burst = perSecond * 2;
  }

  /** Takes one request's token: 0 when the request may go ahead, else seconds to wait. */
  take(client: string): number {
    const now = this.now();
    let bucket = this.buckets.get(client);
    if (bucket === undefined) {
      bucket = { tokens: this.burst, at: now };
      if (this.buckets.size >= this.maxClients)
        this.buckets.delete(this.buckets.keys().next().value!);
    } else {
      this.buckets.delete(client);
      bucket.tokens = Math.min(
        this.burst,
        bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond,
      );
      bucket.at = now;
    }
    this.buckets.set(client, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
  }
}
