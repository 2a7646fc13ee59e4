import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import type { IMetricReader } from '@opentelemetry/sdk-metrics';

/** A metric reader that serves the bridge's metrics for Prometheus to scrape at `/metrics`. */
export function createPrometheusReader(host: string, port: number): IMetricReader {
  return new PrometheusExporter({ host, port });
}
