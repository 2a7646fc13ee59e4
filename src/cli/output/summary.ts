import type { SinkStats } from '../../sink/agent-otel-sink.js';
import { formatUsd } from './trace-tree.js';

export interface RunReport {
  readonly command: string;
  readonly lines: number;
  readonly seconds: number;
  readonly stats: SinkStats;
  readonly destination: string;
}

const n = (value: number) => value.toLocaleString('en-US');

/** The closing summary: a few lines, whatever the input size. */
export function renderSummary(report: RunReport): string[] {
  const { events, runs } = report.stats;
  const rate = report.seconds > 0 ? Math.round(report.lines / report.seconds) : report.lines;
  return [
    `agent-otel-bridge ${report.command}: ${n(report.lines)} lines in ${report.seconds.toFixed(2)} s (${n(rate)} lines/s)`,
    `  events  accepted ${n(events.accepted)}  rejected ${n(events.rejected)}  ignored ${n(events.ignored)}  late ${n(events.late)}  duplicate ${n(events.duplicate)}`,
    `  runs    completed ${n(runs.completed)}  failed ${n(runs.failed)}  cancelled ${n(runs.cancelled)}  abandoned ${n(runs.abandoned)}${runs.open > 0 ? `  open ${n(runs.open)}` : ''}`,
    ...costLine(report.stats.cost),
    `  export  ${report.destination}`,
  ];
}

/** `  cost    $1.23  (2 of 40 model calls unpriced)`, when any call was priced or not. */
function costLine(cost: SinkStats['cost']): string[] {
  const calls = cost.pricedCalls + cost.unpricedCalls;
  if (calls === 0) return [];
  const amount = cost.pricedCalls === 0 ? 'unpriced' : formatUsd(cost.usd);
  const unpriced =
    cost.unpricedCalls === 0
      ? ''
      : `  (${n(cost.unpricedCalls)} of ${n(calls)} model calls unpriced)`;
  return [`  cost    ${amount}${unpriced}`];
}

/** One progress line for a terminal, rewritten in place. */
export function renderProgress(
  lines: number,
  stats: SinkStats,
  pace?: {
    readonly seconds: number;
    /** Bytes read of `totalBytes` (inputs of known size: regular files). */
    readonly readBytes?: number;
    readonly totalBytes?: number;
  },
): string {
  const finished =
    stats.runs.completed + stats.runs.failed + stats.runs.cancelled + stats.runs.abandoned;
  const parts = [
    `lines ${n(lines)}`,
    `runs open ${n(stats.runs.open)} finished ${n(finished)}`,
    `rejected ${n(stats.events.rejected)}`,
  ];
  if (pace !== undefined && pace.seconds > 0) {
    parts.push(`${n(Math.round(lines / pace.seconds))} lines/s`);
    const { readBytes, totalBytes } = pace;
    if (readBytes !== undefined && totalBytes !== undefined && totalBytes > 0 && readBytes > 0) {
      const share = Math.min(1, readBytes / totalBytes);
      const left = (pace.seconds / share) * (1 - share);
      parts.push(`${Math.floor(share * 100)} %`, `about ${Math.ceil(left)} s left`);
    }
  }
  return parts.join('  ');
}
