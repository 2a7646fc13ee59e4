import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import type { IMetricReader } from '@opentelemetry/sdk-metrics';

/**
 * A metric reader that serves the bridge's metrics for Prometheus to scrape at `/metrics`. With a
 * token, a scrape must send `Authorization: Bearer <token>` (Prometheus: `authorization:
 * { credentials: … }` in the scrape config); others get 401.
 */
export function createPrometheusReader(host: string, port: number, token?: string): IMetricReader {
  if (token === undefined) return new PrometheusExporter({ host, port });
  return new GuardedPrometheusExporter(host, port, token);
}

/** The exporter's own request handler behind a bearer token, on a server of ours. */
class GuardedPrometheusExporter extends PrometheusExporter {
  private readonly guarded: Server;

  constructor(host: string, port: number, token: string) {
    super({ host, port, preventServerStart: true });
    const expected = Buffer.from(`Bearer ${token}`);
    this.guarded = createServer((request, response) => {
      const given = Buffer.from(request.headers.authorization ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        response
          .writeHead(401, { 'www-authenticate': 'Bearer' })
          .end('a bearer token is required\n');
        return;
      }
      if ((request.url ?? '').split('?')[0] !== '/metrics') {
        response.writeHead(404).end();
        return;
      }
      this.getMetricsRequestHandler(request, response);
    });
    this.guarded.listen(port, host);
  }

  override async onShutdown(): Promise<void> {
    await super.onShutdown();
    await new Promise<void>((resolve) => this.guarded.close(() => resolve()));
  }
}
