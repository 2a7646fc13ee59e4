import type { Delivered } from '../../telemetry/export/delivery-tally.js';
import type { SinkStats } from '../../sink/agent-otel-sink.js';
import type { CommonOptions, Io } from '../command.js';
import { exportHoldMillis } from '../delivery.js';
import { UNREACHABLE_HOLD_MILLIS } from '../../telemetry/export/outage.js';
import { renderJsonReport, renderReport } from './report.js';
import type { ReportOutput } from './report.js';

/** Rejected lines said one by one at most; the rest are counted in one line. */
export const MAX_REPORTED_REJECTS = 20;

/** What an ingest did: input lines rejected, spans not delivered, metric exports that failed. */
export interface PipelineResult {
  /** Input lines read. */
  readonly lines: number;
  readonly rejected: number;
  readonly undeliveredSpans: number;
  readonly metricFailures: number;
}

/** The end of an ingest, on one thread or on workers: what it delivered and what it read. */
export interface IngestEnd {
  readonly command: string;
  readonly lines: number;
  readonly seconds: number;
  readonly stats: SinkStats;
  readonly output: ReportOutput;
  /** What the collector took (OTLP output only). */
  readonly delivered: Delivered | undefined;
  /** Rejected lines, and how many of them were offered for saying. */
  readonly rejected: number;
  readonly reported: number;
}

/** Says what was not delivered, a likely wrong dialect and the rejects left unsaid; prints the report. */
export function reportIngestEnd(io: Io, options: CommonOptions, end: IngestEnd): PipelineResult {
  const { delivered } = end;
  let undeliveredSpans = delivered === undefined ? 0 : delivered.spans - delivered.delivered;
  let metricFailures = delivered === undefined ? 0 : delivered.metricFailures;
  sayUndelivered(io, {
    spans: delivered?.spans ?? 0,
    undeliveredSpans,
    metricFailures,
    destination: end.output.mode === 'otlp' ? end.output.destination : '',
  });
  // Each extra destination says what it missed, and counts in the exit code.
  for (const d of delivered?.destinations ?? []) {
    sayUndelivered(io, {
      spans: d.spans,
      undeliveredSpans: d.spans - d.delivered,
      metricFailures: d.metricFailures,
      destination: `destination ${d.name}`,
    });
    undeliveredSpans += d.spans - d.delivered;
    metricFailures += d.metricFailures;
  }
  sayIfWrongDialect(io, options, end.lines, end.rejected);
  if (end.reported > MAX_REPORTED_REJECTS && !options.quiet)
    io.stderr.write(`… and ${end.reported - MAX_REPORTED_REJECTS} more rejected lines\n`);
  const run = {
    command: end.command,
    lines: end.lines,
    seconds: end.seconds,
    stats: end.stats,
    ...(delivered === undefined ? {} : { delivered }),
  };
  if (options.json) io.stdout.write(renderJsonReport(end.output, run));
  else if (!options.quiet) io.stdout.write(renderReport(end.output, run));
  return { lines: end.lines, rejected: end.rejected, undeliveredSpans, metricFailures };
}

/** An event type nobody maps (a typo, a newer runtime) is said once per type, not only counted. */
export function sayUnknownOnce(
  io: Io,
  said: Set<string>,
  unknown: { readonly where: string; readonly key: string; readonly message: string },
): void {
  if (said.has(unknown.key)) return;
  said.add(unknown.key);
  io.stderr.write(
    `${unknown.where}: ignored: ${unknown.message} (said once per type; counted as ignored)\n`,
  );
}

/** A wrong --dialect rejects (nearly) everything: says what to try. */
function sayIfWrongDialect(io: Io, options: CommonOptions, lines: number, rejected: number): void {
  if (options.dialect === 'auto' || lines === 0 || rejected < 0.9 * lines || options.quiet) return;
  io.stderr.write(
    `agent-otel-bridge: ${rejected} of ${lines} lines were rejected as ${options.dialect}: is the input another runtime's? Try --dialect auto, or 'agent-otel-bridge validate FILE' to see what each line is\n`,
  );
}

/** Says on stderr what the collector did not take, if anything. */
function sayUndelivered(
  io: Io,
  result: {
    readonly spans: number;
    readonly undeliveredSpans: number;
    readonly metricFailures: number;
    readonly destination: string;
  },
): void {
  if (result.undeliveredSpans === 0 && result.metricFailures === 0) return;
  const metrics = result.metricFailures > 0 ? `, ${result.metricFailures} metric export(s)` : '';
  io.stderr.write(
    `agent-otel-bridge: not delivered: ${result.undeliveredSpans} of ${result.spans} spans${metrics} — the collector (${result.destination}) did not take them; exports are held through an outage for up to ${exportHoldMillis(io.env)} ms in all (AGENT_OTEL_BRIDGE_EXPORT_HOLD_MS), ${UNREACHABLE_HOLD_MILLIS} ms while it was never reached\n`,
  );
}
