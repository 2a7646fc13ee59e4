import type { Writable } from 'node:stream';
import type { Env } from '../../sink-options.js';
import type { InputDialect } from '../../events/dialect-name.js';
import type { RunSummary } from '../../mapping/tracker-context.js';
import { createCommandSink } from '../command-sink.js';
import type { HandleResult } from '../../sink/agent-otel-sink.js';
import type { Input } from '../command.js';

export interface ValidateOptions {
  readonly dialect: InputDialect;
  readonly quiet: boolean;
  readonly stdout: Writable;
  readonly env: Env;
}

const MAX_LISTED_RUNS = 50;

/**
 * Checks logs without exporting anything: a line per input line (dialect, outcome, type and, for
 * rejects, the field path and reason), then a summary per dialect and event type and the runs it
 * would produce. Returns true only when every line was accepted.
 */
export async function validate(
  inputs: readonly Input[],
  options: ValidateOptions,
): Promise<boolean> {
  const runs: RunSummary[] = [];
  // No providers: the global API's no-op ones, so nothing is exported.
  const sink = createCommandSink(options.env, {}, { onRunEnd: (run) => runs.push(run) });
  const byType = new Map<string, Map<string, number>>();
  let lines = 0;
  let notAccepted = 0;
  const out = (text: string) => options.stdout.write(`${text}\n`);
  for (const input of inputs) {
    const stream = sink.openStream(input.name, options.dialect);
    for await (const batch of input.batches)
      for (const line of batch) {
        lines += 1;
        const result: HandleResult = line.ok
          ? stream.handleJson(line.text)
          : sink.reject(line.reason, line.message);
        if (result.outcome !== 'accepted') notAccepted += 1;
        const type = result.sourceType ?? '-';
        const key = `${result.dialect}\0${type}`;
        const counts = byType.get(key) ?? new Map<string, number>();
        counts.set(result.outcome, (counts.get(result.outcome) ?? 0) + 1);
        byType.set(key, counts);
        if (!options.quiet || result.outcome !== 'accepted') {
          const detail =
            result.outcome === 'accepted'
              ? ''
              : `  ${result.reason ?? ''}: ${result.message ?? ''}`;
          out(
            `${input.name}:${line.lineNumber}  ${result.dialect}  ${result.outcome}  ${type}${detail}`,
          );
        }
      }
  }
  sink.endOpenRuns('end_of_input');
  await sink.shutdown();

  out('');
  out(`${lines} lines: ${lines - notAccepted} accepted, ${notAccepted} not accepted`);
  const dialects = [...new Set([...byType.keys()].map((k) => k.split('\0')[0]!))].sort();
  for (const dialect of dialects) {
    out(`dialect ${dialect}`);
    for (const [key, counts] of [...byType].filter(([k]) => k.startsWith(`${dialect}\0`)).sort()) {
      const summary = [...counts].map(([outcome, n]) => `${outcome} ${n}`).join(', ');
      out(`  ${key.split('\0')[1]!.padEnd(28)} ${summary}`);
    }
  }
  const outcomes = ['completed', 'failed', 'cancelled', 'abandoned'].map(
    (o) => `${o} ${runs.filter((r) => r.outcome === o).length}`,
  );
  out(`runs ${runs.length}: ${outcomes.join(', ')}`);
  for (const run of runs.slice(0, MAX_LISTED_RUNS)) {
    out(
      `  ${run.runId}  ${run.outcome}  ${run.iterations} iteration${run.iterations === 1 ? '' : 's'}  trace ${run.traceId}${run.synthesized ? '  (no start event)' : ''}`,
    );
  }
  if (runs.length > MAX_LISTED_RUNS) out(`  … and ${runs.length - MAX_LISTED_RUNS} more`);
  return notAccepted === 0;
}
