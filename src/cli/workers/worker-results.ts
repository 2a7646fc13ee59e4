import type { Delivered, DestinationDelivery } from '../../telemetry/export/delivery-tally.js';
import type { SinkStats } from '../../sink/agent-otel-sink.js';

/** What one worker delivered to the collector (and each extra destination). */
export type WorkerDelivery = Delivered;

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
    cost: sum((s) => s.cost),
  };
}

/** The workers' deliveries, added up (each destination's by name). */
export function sumDelivered(all: readonly WorkerDelivery[]): WorkerDelivery {
  const destinations = new Map<string, DestinationDelivery>();
  for (const r of all)
    for (const d of r.destinations ?? []) {
      const t = destinations.get(d.name);
      destinations.set(
        d.name,
        t === undefined
          ? d
          : {
              name: d.name,
              spans: t.spans + d.spans,
              delivered: t.delivered + d.delivered,
              metricFailures: t.metricFailures + d.metricFailures,
            },
      );
    }
  const total = all.reduce(
    (t, r) => ({
      spans: t.spans + r.spans,
      delivered: t.delivered + r.delivered,
      metricFailures: t.metricFailures + r.metricFailures,
      sampledOut: (t.sampledOut ?? 0) + (r.sampledOut ?? 0),
    }),
    { spans: 0, delivered: 0, metricFailures: 0, sampledOut: 0 },
  );
  return destinations.size === 0 ? total : { ...total, destinations: [...destinations.values()] };
}
