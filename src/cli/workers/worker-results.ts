import type { SinkStats } from '../../sink/agent-otel-sink.js';

/** What one worker delivered to the collector. */
export interface WorkerDelivery {
  readonly spans: number;
  readonly delivered: number;
  readonly metricFailures: number;
}

/** The workers' counts, added up. */
export function mergeStats(all: readonly SinkStats[]): SinkStats {
  const sum = <K extends string>(pick: (s: SinkStats) => Readonly<Record<K, number>>) => {
    const total = {} as Record<K, number>;
    for (const s of all)
      for (const [k, v] of Object.entries(pick(s)) as [K, number][]) total[k] = (total[k] ?? 0) + v;
    return total;
  };
  return {
    events: sum((s) => s.events),
    runs: sum((s) => s.runs),
  };
}

/** The workers' deliveries, added up. */
export function sumDelivered(all: readonly WorkerDelivery[]): WorkerDelivery {
  return all.reduce(
    (t, r) => ({
      spans: t.spans + r.spans,
      delivered: t.delivered + r.delivered,
      metricFailures: t.metricFailures + r.metricFailures,
    }),
    { spans: 0, delivered: 0, metricFailures: 0 },
  );
}
