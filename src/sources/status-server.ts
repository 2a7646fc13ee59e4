import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBearerCheck } from './bearer-auth.js';
import { runsLimit } from './open-runs-answer.js';
import type { OpenRunsView } from './open-runs-answer.js';

export interface StatusServerOptions {
  readonly host: string;
  readonly port: number;
  /** Required on `/runs` when set. */
  readonly token: string | undefined;
  readonly openRuns: (limit: number) => OpenRunsView;
}

export interface StatusServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The broker modes' status endpoint: `GET /runs` (the runs in progress, as `serve` answers it)
 * and `GET /healthz`. It takes no events: those come from the broker.
 */
export async function startStatusServer(options: StatusServerOptions): Promise<StatusServer> {
  const authorized = options.token === undefined ? () => true : createBearerCheck(options.token);
  const server: Server = createServer((req, res) => {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res
        .writeHead(status, { 'content-type': 'application/json', ...headers })
        .end(JSON.stringify(body));
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') return send(405, { error: 'use GET' }, { allow: 'GET' });
    if (path === '/healthz') return send(200, { status: 'ok' });
    if (path !== '/runs') return send(404, { error: 'not found' });
    if (!authorized(req.headers.authorization))
      return send(
        401,
        { error: 'missing or wrong bearer token' },
        { 'www-authenticate': 'Bearer' },
      );
    const limit = runsLimit(req.url ?? '/');
    if (typeof limit === 'string') return send(400, { error: limit });
    try {
      return send(200, options.openRuns(limit));
    } catch {
      return send(500, { error: 'internal error' });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
