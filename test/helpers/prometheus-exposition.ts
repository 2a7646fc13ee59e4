// What the OpenTelemetry Collector's `prometheus` exporter exposes for the OTLP metrics it
// received (no collector binary runs here, so tests put this in its place between the bridge and a
// real Prometheus): each process's latest cumulative points, labelled `job` = service.name and
// `instance` = service.instance.id; counters get `_total`, seconds `_seconds`, units in braces
// nothing; histograms `_bucket{le}` (cumulative), `_sum` and `_count`.
import type { OtlpHistogram, OtlpMetric } from './otlp-protobuf.js';

const sanitize = (name: string) => name.replace(/[^a-zA-Z0-9_]/g, '_');
const escape = (value: string) =>
  value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');

function baseName(metric: OtlpMetric): string {
  const unit = metric.unit === 's' ? '_seconds' : '';
  return sanitize(metric.name) + unit;
}

function labels(pairs: Record<string, unknown>, extra: Record<string, string> = {}): string {
  const all = {
    ...Object.fromEntries(Object.entries(pairs).map(([k, v]) => [sanitize(k), String(v)])),
    ...extra,
  };
  const text = Object.entries(all)
    .map(([k, v]) => `${k}="${escape(v)}"`)
    .join(',');
  return `{${text}}`;
}

/** The exposition text for every process's latest export. */
export function renderExposition(byInstance: ReadonlyMap<string, readonly OtlpMetric[]>): string {
  const lines: string[] = [];
  for (const metrics of byInstance.values()) {
    for (const metric of metrics) {
      const text = (key: string, fallback: string) => {
        const value = metric.resource[key];
        return typeof value === 'string' ? value : fallback;
      };
      const job = text('service.name', 'unknown_service');
      const instance = text('service.instance.id', '');
      const target = { job, instance };
      const name = baseName(metric);
      for (const point of metric.points) {
        if (typeof point.value === 'number') {
          const full = metric.monotonic ? `${name}_total` : name;
          lines.push(`${full}${labels(point.attributes, target)} ${point.value}`);
          continue;
        }
        const h: OtlpHistogram = point.value;
        let cumulative = 0;
        h.explicitBounds.forEach((bound, i) => {
          cumulative += h.bucketCounts[i] ?? 0;
          lines.push(
            `${name}_bucket${labels(point.attributes, { ...target, le: String(bound) })} ${cumulative}`,
          );
        });
        lines.push(
          `${name}_bucket${labels(point.attributes, { ...target, le: '+Inf' })} ${h.count}`,
        );
        lines.push(`${name}_sum${labels(point.attributes, target)} ${h.sum}`);
        lines.push(`${name}_count${labels(point.attributes, target)} ${h.count}`);
      }
    }
  }
  return `${lines.join('\n')}\n`;
}
