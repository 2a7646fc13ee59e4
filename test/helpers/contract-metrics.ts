// The metrics table of docs/telemetry-contract.md, read as the tests hold the code to it.
import { readFileSync } from 'node:fs';
import { DataPointType } from '@opentelemetry/sdk-metrics';

export const KINDS: Record<string, DataPointType[]> = {
  Histogram: [DataPointType.HISTOGRAM],
  Counter: [DataPointType.SUM],
  UpDownCounter: [DataPointType.SUM],
  Gauge: [DataPointType.GAUGE],
};

export interface Row {
  readonly kind: string;
  readonly unit: string;
  /** First and last bucket boundary, where the table names them. */
  readonly buckets?: readonly [number, number];
}

/** The contract's metrics table: metric name → kind, unit and named buckets. */
export function contractMetrics(): Map<string, Row> {
  const text = readFileSync(new URL('../../docs/telemetry-contract.md', import.meta.url), 'utf8');
  const rows = new Map<string, Row>();
  for (const line of text.split('\n')) {
    const row =
      /^\| `([a-z_.]+)` \| (Histogram|Counter|UpDownCounter|Gauge), `([^`]+)`([^|]*)\|/.exec(line);
    if (row === null) continue;
    const bounds = /\[([\d.]+)[^\]]*?([\d.]+)\]/.exec(row[4]!);
    rows.set(row[1]!, {
      kind: row[2]!,
      unit: row[3]!,
      ...(bounds === null ? {} : { buckets: [Number(bounds[1]), Number(bounds[2])] as const }),
    });
  }
  return rows;
}
