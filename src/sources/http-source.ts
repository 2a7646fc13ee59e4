import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { INPUT_DIALECTS } from '../events/dialect-name.js';
import { DEFAULT_MAX_JSON_DEPTH } from '../dialects/shared/json-depth.js';
import { ByteBudget, decompress, ENCODINGS, readBody, splitBody } from './http-body.js';
import type { InputDialect } from '../events/dialect-name.js';
import type { EventIntake, IntakeLine, LineOutcome } from './event-intake.js';
import { createBearerCheck } from './bearer-auth.js';
import { ClientRateLimit } from './rate-limit.js';
import { runsLimit } from './open-runs-answer.js';
import type { HttpSourceOptions } from './http-source-options.js';

// Bodies of valid events cost several times their size while they are decoded and applied: 16 MiB
// of them keeps 100 concurrent maximum-size requests under 400 MiB (test/e2e/serve-memory.test.ts).
const DEFAULT_MAX_IN_FLIGHT_BYTES = 16 * 1024 * 1024;

export interface HttpSource {
  readonly url: string;
  /** Stops taking requests (readyz answers 503) and waits for those in flight. */
  close(): Promise<void>;
}

const CONTENT_TYPES = new Set([
  'application/x-ndjson',
  'application/jsonl',
  'application/json',
  'text/plain',
]);

/** A request body that sends nothing for this long is answered 408 and its connection closed. */
export const BODY_IDLE_MILLIS = 10_000;

interface LineReport {
  readonly line: number;
  readonly outcome: string;
  readonly reason?: string | undefined;
  readonly message?: string | undefined;
  readonly path?: string | undefined;
}

/**
 * `POST /v1/events`: NDJSON (or a JSON array) of agent events, handed to `intake`, answered
 * with per-line results. `X-Agent-Dialect` names the dialect; `X-Agent-Stream` scopes runs without
 * run ids across requests (default: each request is its own stream). `GET /runs` lists the runs
 * in progress (with the token, when one is set). `GET /healthz`, `GET /readyz`.
 */
export async function startHttpSource(
  intake: EventIntake,
  options: HttpSourceOptions,
): Promise<HttpSource> {
  const authorized = options.token === undefined ? () => true : createBearerCheck(options.token);
  const rate = new ClientRateLimit(options.maxRequestsPerSecond);
  const maxInFlight = options.maxInFlightBytes ?? DEFAULT_MAX_IN_FLIGHT_BYTES;
  const inFlight = new ByteBudget(maxInFlight);
  let requests = 0;
  let draining = false;

  const handleEvents = async (req: IncomingMessage, res: ServerResponse) => {
    const wait = rate.take(req.socket.remoteAddress ?? 'unknown');
    if (wait > 0) {
      intake.limitHit(
        'request_rate',
        `a client sent more than ${options.maxRequestsPerSecond} requests per second; it is answered 429`,
      );
      return send(
        res,
        429,
        { error: `more than ${options.maxRequestsPerSecond} requests per second` },
        { 'retry-after': String(wait) },
      );
    }
    if (!authorized(req.headers.authorization)) {
      return send(
        res,
        401,
        { error: 'missing or wrong bearer token' },
        { 'www-authenticate': 'Bearer' },
      );
    }
    const refusal = options.admission?.();
    if (refusal !== undefined) {
      intake.limitHit('export_backlog', `requests are answered 503 while ${refusal.reason}`);
      req.resume();
      return send(
        res,
        503,
        { error: refusal.reason },
        { 'retry-after': String(refusal.retryAfterSeconds) },
      );
    }
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!CONTENT_TYPES.has(type)) {
      return send(res, 415, {
        error: `content type must be one of ${[...CONTENT_TYPES].join(', ')}`,
      });
    }
    const dialectHeader = header(req, 'x-agent-dialect');
    if (
      dialectHeader !== undefined &&
      !(INPUT_DIALECTS as readonly string[]).includes(dialectHeader)
    ) {
      return send(res, 400, {
        error: `X-Agent-Dialect must be one of ${INPUT_DIALECTS.join(', ')}`,
      });
    }
    const encoding = (header(req, 'content-encoding') ?? 'identity').toLowerCase();
    if (!ENCODINGS.has(encoding)) {
      return send(res, 415, {
        error: `Content-Encoding must be one of ${[...ENCODINGS].join(', ')}, got ${encoding}`,
      });
    }
    const declared = Number(req.headers['content-length'] ?? 0) || 0;
    if (declared > options.maxBodyBytes) return tooLarge(req, res);
    // A body takes from the budget as it arrives, not as it is declared: a client that declares
    // a large body and sends nothing holds nothing that others need.
    let held = 0;
    res.on('close', () => inFlight.give(held));
    const body = await readBody(
      req,
      options.maxBodyBytes,
      (size) => {
        if (size <= held) return true;
        if (!inFlight.take(size - held)) return false;
        held = size;
        return true;
      },
      BODY_IDLE_MILLIS,
    );
    if (body === 'busy') return busy(req, res);
    if (body === 'idle')
      return send(
        res,
        408,
        { error: `no body bytes for ${BODY_IDLE_MILLIS / 1000} s` },
        { connection: 'close' },
      );
    if (body === undefined) return tooLarge(req, res);
    let text = body;
    if (encoding !== 'identity') {
      // Decoded within the body limit, and held against the budget like any body.
      const decoded = await decompress(body, encoding, options.maxBodyBytes);
      if (decoded === 'too_large') return tooLarge(req, res);
      if (decoded === 'invalid')
        return send(res, 400, { error: `body is not valid ${encoding} data` });
      if (!inFlight.take(decoded.length)) return busy(req, res);
      held += decoded.length;
      text = decoded;
    }
    const lines = splitBody(text, type, options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH);
    if (typeof lines === 'string') return send(res, 400, { error: lines });
    // Blank lines are skipped; line numbers in the answer are the body's own.
    const numbers: number[] = [];
    const taken: IntakeLine[] = [];
    lines.forEach((line, i) => {
      if ('text' in line && line.text.trim() === '') return;
      numbers.push(i + 1);
      taken.push(
        'invalid' in line
          ? { reason: 'invalid_utf8', message: 'line is not valid UTF-8' }
          : Buffer.byteLength(line.text) > options.maxLineBytes
            ? { reason: 'line_too_long', message: `line longer than ${options.maxLineBytes} bytes` }
            : line,
      );
    });
    const scope = header(req, 'x-agent-stream');
    requests += 1;
    const results: readonly LineOutcome[] = await intake.handle(taken, {
      scope: scope ?? `http-request-${requests}`,
      named: scope !== undefined,
      dialect: (dialectHeader as InputDialect | undefined) ?? options.dialect,
    });
    const counts: Record<string, number> = {
      accepted: 0,
      rejected: 0,
      ignored: 0,
      late: 0,
      duplicate: 0,
    };
    const problems: LineReport[] = [];
    results.forEach((result, k) => {
      counts[result.outcome] = (counts[result.outcome] ?? 0) + 1;
      if (result.outcome === 'rejected' || result.outcome === 'ignored') {
        problems.push({
          line: numbers[k]!,
          outcome: result.outcome,
          reason: result.reason,
          message: result.message,
          path: result.path,
        });
      }
    });
    send(res, 200, { ...counts, problems });
  };

  const tooLarge = (req: IncomingMessage, res: ServerResponse) => {
    intake.limitHit(
      'body_size',
      `a request body was larger than ${options.maxBodyBytes} bytes; it is answered 413`,
    );
    res.on('finish', () => req.destroy());
    return send(
      res,
      413,
      { error: `body larger than ${options.maxBodyBytes} bytes` },
      { connection: 'close' },
    );
  };

  const busy = (req: IncomingMessage, res: ServerResponse) => {
    intake.limitHit(
      'in_flight_bytes',
      `request bodies held at once passed ${maxInFlight} bytes; further requests are answered 503`,
    );
    res.on('finish', () => req.destroy());
    return send(
      res,
      503,
      { error: 'too many request bytes in flight' },
      { 'retry-after': '1', connection: 'close' },
    );
  };

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz' && req.method === 'GET') return send(res, 200, { status: 'ok' });
    if (path === '/readyz' && req.method === 'GET')
      return send(res, draining ? 503 : 200, { status: draining ? 'draining' : 'ready' });
    if (path === '/runs') {
      if (req.method !== 'GET') return send(res, 405, { error: 'use GET' }, { allow: 'GET' });
      if (!authorized(req.headers.authorization))
        return send(
          res,
          401,
          { error: 'missing or wrong bearer token' },
          { 'www-authenticate': 'Bearer' },
        );
      const limit = runsLimit(req.url ?? '/');
      if (typeof limit === 'string') return send(res, 400, { error: limit });
      Promise.resolve(intake.openRuns(limit))
        .then((view) => send(res, 200, view))
        .catch(() => send(res, 500, { error: 'internal error' }));
      return;
    }
    if (path !== '/v1/events') return send(res, 404, { error: 'not found' });
    if (req.method !== 'POST') return send(res, 405, { error: 'use POST' }, { allow: 'POST' });
    if (draining) return send(res, 503, { error: 'shutting down' }, { connection: 'close' });
    handleEvents(req, res).catch(() => send(res, 500, { error: 'internal error' }));
  };
  // Node checks the request and header timeouts only this often (30 s by default, which let a
  // 30 s timeout run to 60 s): once a second keeps them within a second of what is documented.
  const timing = { connectionsCheckingInterval: 1000 };
  const server: Server =
    options.tls === undefined
      ? createServer(timing, handler)
      : createHttpsServer({ ...timing, cert: options.tls.cert, key: options.tls.key }, handler);
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `${options.tls === undefined ? 'http' : 'https'}://${host}:${address.port}`,
    close() {
      draining = true;
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
    },
  };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify(body));
}
