/** What a router needs: the source, the partition count, its consumer group and timing. */
export interface RouterOptions {
  readonly url: string;
  /** NATS: the stream holding the source subject; Redis: unused (the key is `source`). */
  readonly stream: string;
  /** The runtime's subject (NATS) or stream key (Redis). */
  readonly source: string;
  readonly partitions: number;
  /** The routers' shared durable consumer (NATS) or consumer group (Redis). */
  readonly group: string;
  /** This router's consumer name (Redis). */
  readonly consumer: string;
  /** NATS ack wait; Redis: entries of a dead router idle this long are claimed. */
  readonly ackWaitMillis: number;
  /** NATS: the routing lease's time; a standby router takes over at most this long after the router died. */
  readonly leaseMillis: number;
  readonly batchSize: number;
  /** Redis: the entry field holding the event (default `event`). */
  readonly field?: string;
  readonly report: (message: string) => void;
}

/** A stateless router: consumes the runtime's single stream and republishes by partition. */
export interface Router {
  run(): Promise<void>;
  stop(): void;
  /** Events republished so far. */
  readonly routed: number;
}
