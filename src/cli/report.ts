import type { SinkStats } from '../sink.js';
import type { Output } from './output.js';
import { renderSummary } from './summary.js';
import { renderTraceTree } from './trace-tree.js';

/** What the CLI prints at the end: trace trees when there is no collector, then the summary. */
export function renderReport(
  output: Output,
  run: {
    readonly command: string;
    readonly lines: number;
    readonly seconds: number;
    readonly stats: SinkStats;
  },
): string {
  const out: string[] = [];
  if (output.mode === 'terminal') {
    for (const spans of output.collector.collected().values())
      out.push(...renderTraceTree(spans), '');
    if (output.collector.skipped > 0)
      out.push(`(${output.collector.skipped} spans of further traces not shown)`, '');
  }
  const destination = output.mode === 'otlp' ? output.destination : `terminal (${output.reason})`;
  out.push(...renderSummary({ ...run, destination }));
  if (output.mode === 'terminal') {
    out.push(
      'To export: start a collector (docker compose up -d) or set OTEL_EXPORTER_OTLP_ENDPOINT=http://HOST:4318',
    );
  }
  return `${out.join('\n')}\n`;
}
