import type { OpenRunsView } from '../../sources/open-runs-answer.js';
import { formatUsd } from './trace-tree.js';

/** Where the view came from and how much room it has. */
export interface TopFrame {
  readonly url: string;
  readonly now: Date;
  /** Terminal columns; lines are cut to it. */
  readonly columns: number;
  /** Run rows shown at most (the oldest first). */
  readonly rows: number;
}

/** `agent-otel-bridge top`'s screen: a summary of the open runs, then one line per run. */
export function renderTop(view: OpenRunsView, frame: TopFrame): string[] {
  const runs = view.runs;
  const oldest = runs.reduce((max, run) => Math.max(max, run.ageSeconds), 0);
  const input = runs.reduce((sum, run) => sum + run.inputTokens, 0);
  const output = runs.reduce((sum, run) => sum + run.outputTokens, 0);
  const cost = runs.reduce((sum, run) => sum + (run.costUsd ?? 0), 0);
  const priced = runs.some((run) => run.costUsd !== undefined);
  const partial = runs.length < view.open ? ` (tokens: the ${runs.length} listed)` : '';
  const partitioned = runs.some((run) => run.partition !== undefined);
  const header = [
    'RUN ID'.padEnd(36),
    'AGE'.padStart(8),
    'ITER'.padStart(5),
    'IN TOK'.padStart(9),
    'OUT TOK'.padStart(8),
    'COST'.padStart(9),
    'TOOLS'.padStart(5),
    ' LAST EVENT'.padEnd(28),
    'MODEL',
  ];
  if (partitioned) header.splice(1, 0, 'PART'.padStart(4));
  const lines = [
    `agent-otel-bridge top — ${frame.url}   ${frame.now.toISOString().slice(11, 19)} UTC`,
    `${view.open} runs open · oldest ${duration(oldest)} · tokens so far ${count(input)} in / ${count(output)} out${priced ? ` · cost so far ${formatUsd(cost)}` : ''}${partial}`,
    '',
    header.join(' '),
  ];
  for (const run of runs.slice(0, frame.rows)) {
    const cells = [
      run.runId.padEnd(36).slice(0, 36),
      duration(run.ageSeconds).padStart(8),
      String(run.iteration).padStart(5),
      count(run.inputTokens).padStart(9),
      count(run.outputTokens).padStart(8),
      (run.costUsd === undefined ? '-' : formatUsd(run.costUsd)).padStart(9),
      String(run.toolsRunning).padStart(5),
      ` ${run.lastEvent}`.padEnd(28).slice(0, 28),
      [run.provider, run.model].filter((part) => part !== undefined).join('/') || '-',
    ];
    if (partitioned) cells.splice(1, 0, String(run.partition ?? '-').padStart(4));
    lines.push(cells.join(' '));
  }
  if (runs.length > frame.rows) lines.push(`… ${view.open - frame.rows} more`);
  else if (view.open > runs.length) lines.push(`… ${view.open - runs.length} more not listed`);
  return lines.map((line) => (line.length > frame.columns ? line.slice(0, frame.columns) : line));
}

function duration(seconds: number): string {
  const s = Math.floor(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

function count(n: number): string {
  if (n < 10_000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}
