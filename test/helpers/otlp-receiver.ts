// A real OTLP/HTTP receiver for end-to-end tests: accepts /v1/traces and /v1/metrics in
// http/json and http/protobuf, decodes both into one normalized shape.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { decodeMetricsRequest, decodeTraceRequest } from './otlp-protobuf.js';
import type { OtlpMetric, OtlpSpan } from './otlp-protobuf.js';
import { normalizeJsonMetrics, normalizeJsonSpans } from './otlp-json.js';

export interface OtlpReceiver {
  readonly url: string;
  readonly spans: OtlpSpan[];
  /** The latest metrics export (cumulative temporality: it holds every point). */
  readonly metrics: OtlpMetric[];
  /** How many metric exports arrived. */
  readonly metricExports: number;
  /** The latest metrics export of each process (by `service.instance.id`). */
  readonly metricsByInstance: ReadonlyMap<string, OtlpMetric[]>;
  /** While set, every request is answered with this status (an outage), with Retry-After when given. */
  refusing: { readonly status: number; readonly retryAfterSeconds?: number } | undefined;
  /** Requests refused so far. */
  readonly refused: number;
  /**
   * While set, requests to `path` (both paths when absent) fail this way: a status (with
   * Retry-After when given), no answer at all (`hang`), or the connection closed (`close`).
   */
  fault: ReceiverFault | undefined;
  /** Delay before answering each request (a slow collector). */
  delayMillis: number;
  /** Stops listening (connections are refused) until `listenAgain()` on the same port. */
  stopListening(): Promise<void>;
  listenAgain(): Promise<void>;
  readonly contentTypes: Set<string>;
  /** Resource attributes seen on trace requests. */
  readonly resources: Record<string, unknown>[];
  /**
   * Spans by the `service.instance.id` of the resource they came with ('' without one): a test
   * whose bridge names itself reads its own spans only, whatever else reaches the port.
   */
  readonly spansByInstance: ReadonlyMap<string, readonly OtlpSpan[]>;
  close(): Promise<void>;
}

export interface ReceiverFault {
  readonly path?: '/v1/traces' | '/v1/metrics';
  readonly kind: 'status' | 'hang' | 'close';
  readonly status?: number;
  readonly retryAfterSeconds?: number;
}

export interface ReceiverOptions {
  /** Called when a request has arrived, before it is answered (e.g. to kill the sender). */
  readonly onRequest?: (path: string) => void;
}

export async function startOtlpReceiver(options: ReceiverOptions = {}): Promise<OtlpReceiver> {
  const byInstance = new Map<string, OtlpMetric[]>();
  let refusing: OtlpReceiver['refusing'];
  let fault: ReceiverFault | undefined;
  let refused = 0;
  let delayMillis = 0;
  const spans: OtlpSpan[] = [];
  let metrics: OtlpMetric[] = [];
  let metricExports = 0;
  const contentTypes = new Set<string>();
  const resources: Record<string, unknown>[] = [];
  const spansByInstance = new Map<string, OtlpSpan[]>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      options.onRequest?.(req.url ?? '');
      if (fault !== undefined && (fault.path === undefined || fault.path === req.url)) {
        refused += 1;
        if (fault.kind === 'hang') return; // the exporter's timeout ends it
        if (fault.kind === 'close') {
          req.socket.destroy();
          return;
        }
        const headers =
          fault.retryAfterSeconds === undefined
            ? {}
            : { 'retry-after': String(fault.retryAfterSeconds) };
        res.writeHead(fault.status ?? 503, headers).end();
        return;
      }
      if (refusing !== undefined) {
        refused += 1;
        const headers =
          refusing.retryAfterSeconds === undefined
            ? {}
            : { 'retry-after': String(refusing.retryAfterSeconds) };
        res.writeHead(refusing.status, headers).end();
        return;
      }
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
      contentTypes.add(type);
      const json = type === 'application/json';
      try {
        if (req.url === '/v1/traces') {
          const decoded = json
            ? normalizeJsonSpans(JSON.parse(body.toString('utf8')))
            : decodeTraceRequest(body);
          spans.push(...decoded.spans);
          resources.push(...decoded.resources);
          const instance = decoded.resources[0]?.['service.instance.id'];
          const key = typeof instance === 'string' ? instance : '';
          spansByInstance.set(key, [...(spansByInstance.get(key) ?? []), ...decoded.spans]);
        } else if (req.url === '/v1/metrics') {
          metrics = json
            ? normalizeJsonMetrics(JSON.parse(body.toString('utf8')))
            : decodeMetricsRequest(body);
          metricExports += 1;
          const instance = metrics[0]?.resource['service.instance.id'];
          byInstance.set(typeof instance === 'string' ? instance : '', metrics);
        } else {
          res.writeHead(404).end();
          return;
        }
        setTimeout(
          () => res.writeHead(200, { 'content-type': type }).end(json ? '{}' : Buffer.alloc(0)),
          delayMillis,
        );
      } catch (error) {
        res.writeHead(400).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    get metrics() {
      return metrics;
    },
    get metricExports() {
      return metricExports;
    },
    metricsByInstance: byInstance,
    get refusing() {
      return refusing;
    },
    set refusing(value) {
      refusing = value;
    },
    get fault() {
      return fault;
    },
    set fault(value) {
      fault = value;
    },
    get refused() {
      return refused;
    },
    get delayMillis() {
      return delayMillis;
    },
    set delayMillis(value) {
      delayMillis = value;
    },
    stopListening: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    listenAgain: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
    contentTypes,
    resources,
    spansByInstance,
    close: () =>
      new Promise((resolve) => {
        if (!server.listening) {
          resolve();
          return;
        }
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** `agent.runs` summed over outcomes in one instance's latest (cumulative) metric export. */
export function countedRuns(metrics: readonly OtlpMetric[]): number {
  return metrics
    .filter((m) => m.name === 'agent.runs')
    .flatMap((m) => m.points)
    .reduce((t, p) => t + (p.value as number), 0);
}

/** Runs counted by every instance (process or worker) that exported metrics. */
export const totalCounted = (receiver: OtlpReceiver): number =>
  [...receiver.metricsByInstance.values()].reduce((t, m) => t + countedRuns(m), 0);
