import type { InputDialect } from '../events/dialect-name.js';

/** What `serve` listens on and how much it takes: the HTTP source's options. */
export interface HttpSourceOptions {
  readonly host: string;
  readonly port: number;
  /** Required on every request when set. */
  readonly token: string | undefined;
  readonly maxBodyBytes: number;
  readonly maxLineBytes: number;
  /** Dialect when the request names none. */
  readonly dialect: InputDialect;
  /** Requests per second one client (remote address) may make, twice that in a burst; beyond it 429. */
  readonly maxRequestsPerSecond: number;
  /** Serve HTTPS with this PEM certificate and key. */
  readonly tls?: { readonly cert: string; readonly key: string } | undefined;
  /**
   * Asked before a request is read: a reason to refuse it for now (answered 503 with
   * `Retry-After`), so that nothing is accepted that may not be kept. Default: always admitted.
   */
  readonly admission?: () => Refusal | undefined;
  /**
   * Request body bytes held at once over all requests; beyond it a request is answered 503 with
   * `Retry-After` (memory is bounded per process, not per request). Default: 64 MiB.
   */
  readonly maxInFlightBytes?: number;
  /** Deepest JSON nesting of a JSON-array body, checked before it is parsed. Default: 64. */
  readonly maxJsonDepth?: number;
}

/** Why a request is refused for now, and when to try again. */
export interface Refusal {
  readonly reason: string;
  readonly retryAfterSeconds: number;
}
