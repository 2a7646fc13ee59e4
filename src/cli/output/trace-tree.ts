import { SpanStatusCode } from '@opentelemetry/api';
import { secondsBetween } from '../../events/hr-time.js';
import type { CollectedSpan } from '../../telemetry/index.js';

/** Renders one trace as an indented tree: spans with durations, status, tokens and outcomes. */
export function renderTraceTree(spans: readonly CollectedSpan[]): string[] {
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map<string | undefined, CollectedSpan[]>();
  for (const span of spans) {
    const parent =
      span.parentSpanId !== undefined && ids.has(span.parentSpanId) ? span.parentSpanId : undefined;
    const list = children.get(parent) ?? [];
    list.push(span);
    children.set(parent, list);
  }
  for (const list of children.values())
    list.sort((a, b) => secondsBetween(a.startTime, b.startTime));
  const lines: string[] = [];
  const walk = (span: CollectedSpan, prefix: string, last: boolean, root: boolean) => {
    lines.push(`${prefix}${root ? '' : last ? '└─ ' : '├─ '}${describe(span)}`);
    const childPrefix = root ? '' : `${prefix}${last ? '   ' : '│  '}`;
    const kids = children.get(span.spanId) ?? [];
    for (const event of span.events) {
      if (event.name === 'exception') continue;
      lines.push(
        `${childPrefix}${kids.length > 0 ? '│  ' : '   '}• ${event.name}${eventDetail(event.attributes)}`,
      );
    }
    kids.forEach((kid, i) => walk(kid, childPrefix, i === kids.length - 1, false));
  };
  const roots = children.get(undefined) ?? [];
  for (const root of roots) {
    const runId = root.attributes['agent.run.id'];
    lines.push(`trace ${root.traceId}${typeof runId === 'string' ? `  run ${runId}` : ''}`);
    walk(root, '', true, true);
  }
  return lines;
}

function describe(span: CollectedSpan): string {
  const a = span.attributes;
  const parts = [span.name];
  if (a['agent.iteration.number'] !== undefined && span.name === 'agent.iteration')
    parts[0] = `${span.name} #${text(a['agent.iteration.number'])}`;
  parts.push(formatDuration(secondsBetween(span.endTime, span.startTime)));
  const outcome = a['agent.run.outcome'] ?? a['agent.tool.outcome'];
  if (typeof outcome === 'string') parts.push(outcome);
  if (
    a['gen_ai.usage.input_tokens'] !== undefined ||
    a['gen_ai.usage.output_tokens'] !== undefined
  ) {
    parts.push(
      `tokens in=${text(a['gen_ai.usage.input_tokens'])} out=${text(a['gen_ai.usage.output_tokens'])}`,
    );
  }
  const cost = costText(a);
  if (cost !== undefined) parts.push(cost);
  const ttfc = a['gen_ai.response.time_to_first_chunk'];
  if (typeof ttfc === 'number') parts.push(`first chunk ${formatDuration(ttfc)}`);
  if (a['agent.span.incomplete'] === true && outcome !== 'incomplete') parts.push('incomplete');
  if (span.status.code === SpanStatusCode.ERROR) {
    const type = a['error.type'];
    parts.push(
      `ERROR${typeof type === 'string' ? ` ${type}` : ''}${span.status.message ? `: ${span.status.message}` : ''}`,
    );
  }
  return parts.join('  ');
}

/** `$0.000248`, `$0.0012 + unpriced` (part of a run unpriced) or `unpriced`. */
function costText(a: Readonly<Record<string, unknown>>): string | undefined {
  const amount = a['gen_ai.usage.cost.amount'] ?? a['agent.run.cost.usd'];
  const status = a['agent.cost.status'] ?? a['agent.run.cost.status'];
  if (status === 'unpriced') return 'unpriced';
  if (typeof amount !== 'number') return undefined;
  return `${formatUsd(amount)}${status === 'partial' ? ' + unpriced' : ''}`;
}

/** Dollars to 2 significant digits below a cent, to the cent above. */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0';
  return usd >= 0.01 ? `$${usd.toFixed(2)}` : `$${usd.toPrecision(2)}`;
}

function eventDetail(attributes: Readonly<Record<string, unknown>>): string {
  const detail =
    attributes['gen_ai.tool.name'] ??
    attributes['agent.doom_loop.description'] ??
    attributes['agent.compaction.consecutive_failures'];
  return detail === undefined ? '' : ` ${text(detail)}`;
}

export function formatDuration(seconds: number): string {
  if (seconds < 1) return `${(seconds * 1000).toFixed(seconds < 0.01 ? 2 : 0)}ms`;
  return `${seconds.toFixed(seconds < 10 ? 3 : 1)}s`;
}

function text(value: unknown): string {
  if (value === undefined) return '-';
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : JSON.stringify(value);
}
