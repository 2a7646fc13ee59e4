import type { SinkStats } from '../../sink/agent-otel-sink.js';
import type { DestinationDelivery } from '../../telemetry/export/delivery-tally.js';
import type { Output } from './output.js';
import { renderSummary } from './summary.js';
import { renderTraceTree } from './trace-tree.js';

/** Where a command's telemetry went: a collector, or trace trees in the terminal. */
export type ReportOutput = Output | { readonly mode: 'otlp'; readonly destination: string };

/** What a command did, for its closing report. */
export interface RunReport {
  readonly command: string;
  readonly lines: number;
  readonly seconds: number;
  readonly stats: SinkStats;
  /** Spans made and acknowledged by the collector (OTLP output). */
  readonly delivered?: {
    readonly spans: number;
    readonly delivered: number;
    readonly metricFailures?: number;
    /** Spans of runs that run sampling dropped (never owed to the collector). */
    readonly sampledOut?: number;
    /** Each extra destination's deliveries. */
    readonly destinations?: readonly DestinationDelivery[];
  };
}

/** The summary as one JSON object (`--json`): what a script reads instead of the text. */
export function renderJsonReport(output: ReportOutput, run: RunReport): string {
  const destination = output.mode === 'otlp' ? output.destination : `terminal (${output.reason})`;
  return `${JSON.stringify({
    command: run.command,
    lines: run.lines,
    seconds: Number(run.seconds.toFixed(3)),
    events: run.stats.events,
    runs: run.stats.runs,
    cost: run.stats.cost,
    export: destination,
    ...(run.delivered === undefined ? {} : { delivered: run.delivered }),
  })}\n`;
}

/** What the CLI prints at the end: trace trees when there is no collector, then the summary. */
export function renderReport(output: ReportOutput, run: RunReport): string {
  const out: string[] = [];
  if (output.mode === 'terminal') {
    for (const spans of output.collector.collected().values())
      out.push(...renderTraceTree(spans), '');
    if (output.collector.skipped > 0)
      out.push(`(${output.collector.skipped} spans of further traces not shown)`, '');
  }
  const destination = output.mode === 'otlp' ? output.destination : `terminal (${output.reason})`;
  out.push(...renderSummary({ ...run, destination }));
  if (run.delivered !== undefined)
    out.push(
      `  delivered ${run.delivered.delivered} of ${run.delivered.spans} spans${
        (run.delivered.sampledOut ?? 0) > 0
          ? ` (${run.delivered.sampledOut} more sampled out: runs dropped by AGENT_OTEL_BRIDGE_SAMPLE_RATIO)`
          : ''
      }`,
    );
  for (const d of run.delivered?.destinations ?? [])
    out.push(`  delivered to ${d.name}: ${d.delivered} of ${d.spans} spans`);
  if (output.mode === 'terminal') {
    out.push(
      'To export: start a collector (docker compose up -d) or set OTEL_EXPORTER_OTLP_ENDPOINT=http://HOST:4318',
    );
  }
  return `${out.join('\n')}\n`;
}
