import { readFileSync } from 'node:fs';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { createHarness } from './harness.js';
import type { OtlpSpan } from './otlp-protobuf.js';

const sorted = (attributes: Record<string, unknown>) =>
  JSON.stringify(
    Object.fromEntries(Object.entries(attributes).sort(([a], [b]) => a.localeCompare(b))),
  );
const ns = (t: [number, number]) => (BigInt(t[0]) * 1_000_000_000n + BigInt(t[1])).toString();

/** Span ids that arrived more than once with different content (a duplicate must be identical). */
export function divergentDuplicates(spans: readonly OtlpSpan[]): string[] {
  const copies = new Map<string, Set<string>>();
  for (const span of spans)
    copies.set(span.spanId, (copies.get(span.spanId) ?? new Set()).add(wireFingerprint(span)));
  return [...copies].filter(([, c]) => c.size > 1).map(([id]) => id);
}

/**
 * Each span id that arrived with different content, with its distinct copies (one per line): what a
 * failed assertion prints, so that the difference can be read.
 */
export function divergentCopies(spans: readonly OtlpSpan[]): string[] {
  const ids = new Set(divergentDuplicates(spans));
  const copies = new Map<string, Set<string>>();
  for (const span of spans)
    if (ids.has(span.spanId))
      copies.set(span.spanId, (copies.get(span.spanId) ?? new Set()).add(wireFingerprint(span)));
  return [...copies].map(([id, c]) => `${id}:\n  ${[...c].join('\n  ')}`);
}

/** Everything a span carries that a duplicate must repeat exactly. */
export function wireFingerprint(s: OtlpSpan): string {
  return [
    s.traceId,
    s.spanId,
    s.parentSpanId,
    s.name,
    s.startTimeUnixNano,
    s.endTimeUnixNano,
    s.status.code,
    s.status.message,
    sorted(s.attributes),
    s.events.map((e) => `${e.name}@${e.timeUnixNano}${sorted(e.attributes)}`).join(','),
  ].join('|');
}

/**
 * A span without its times: runtimes without timestamps are timed by arrival, which differs from
 * one process to the next (the time to first chunk with them).
 */
export function timelessFingerprint(s: OtlpSpan): string {
  return JSON.stringify([
    s.traceId,
    s.spanId,
    s.parentSpanId,
    s.name,
    s.status,
    Object.entries(s.attributes)
      .filter(([k]) => k !== 'gen_ai.response.time_to_first_chunk')
      .sort(([a], [b]) => a.localeCompare(b)),
    s.events.map((e) => e.name),
  ]);
}

function sdkFingerprint(s: ReadableSpan): string {
  return [
    s.spanContext().traceId,
    s.spanContext().spanId,
    s.parentSpanContext?.spanId ?? '',
    s.name,
    ns(s.startTime),
    ns(s.endTime),
    s.status.code,
    s.status.message ?? '',
    sorted(s.attributes),
    s.events.map((e) => `${e.name}@${ns(e.time)}${sorted(e.attributes ?? {})}`).join(','),
  ].join('|');
}

/** The spans the given NDJSON files produce in-process, runs left open not ended. */
export function expectedFingerprints(files: readonly string[], agentName?: string): Set<string> {
  const h = createHarness(agentName === undefined ? {} : { agentName });
  for (const file of files) h.feed(readFileSync(file, 'utf8'));
  return new Set(h.spans().map(sdkFingerprint));
}

/** Polls until `check` returns true or the time is up. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMillis: number,
  what: string,
): Promise<void> {
  const until = Date.now() + timeoutMillis;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${timeoutMillis} ms waiting for ${what}`);
}

/**
 * What became of each expected span that did not arrive as expected: exported with other content
 * (the fields that differ) or never exported, with its run's partition where `partitionOf` says.
 */
export function describeMissing(
  expected: Iterable<string>,
  spans: readonly OtlpSpan[],
  limit = 12,
): string {
  const seen = new Set(spans.map(wireFingerprint));
  const bySpanId = new Map<string, string[]>();
  for (const span of spans) {
    const copies = bySpanId.get(span.spanId) ?? [];
    copies.push(wireFingerprint(span));
    bySpanId.set(span.spanId, copies);
  }
  const fields = [
    'trace',
    'span',
    'parent',
    'name',
    'start',
    'end',
    'status',
    'message',
    'attributes',
    'events',
  ];
  const missing = [...expected].filter((f) => !seen.has(f));
  const lines = missing.slice(0, limit).map((f) => {
    const want = f.split('|');
    const got = [...new Set(bySpanId.get(want[1]!) ?? [])];
    if (got.length === 0) return `never exported: ${want[3]} span ${want[1]} of trace ${want[0]}`;
    const differences = got.map((g) => {
      const have = g.split('|');
      return fields
        .filter((_, i) => have[i] !== want[i])
        .map((name) => {
          const i = fields.indexOf(name);
          return `${name}: expected ${want[i]} got ${have[i]}`;
        })
        .join('; ');
    });
    return `exported differently: ${want[3]} span ${want[1]} of trace ${want[0]}: ${differences.join(' / ')}`;
  });
  return [`${missing.length} expected spans missing`, ...lines].join('\n');
}

/**
 * The traces as shapes, without their ids: each trace as the sorted list of its spans (name,
 * parent's name, status, attributes, event names), with every trace and span id — and the run id
 * an attribute repeats — left out. Two exports that named the same runs differently (which of two
 * inputs that begin alike keeps the derived id depends on which is read first) have the same shapes.
 */
export function traceShapes(spans: readonly OtlpSpan[]): string[] {
  const byTrace = new Map<string, Map<string, OtlpSpan>>();
  for (const s of spans) {
    const trace = byTrace.get(s.traceId) ?? new Map<string, OtlpSpan>();
    trace.set(s.spanId, s);
    byTrace.set(s.traceId, trace);
  }
  return [...byTrace]
    .map(([traceId, trace]) => {
      const runId = traceId.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
      const idless = (value: unknown) =>
        typeof value === 'string' && (value.includes(runId) || value.includes(traceId))
          ? '<run id>'
          : value;
      return JSON.stringify(
        [...trace.values()]
          .map((s) =>
            JSON.stringify([
              s.name,
              trace.get(s.parentSpanId)?.name ?? (s.parentSpanId === '' ? null : '<outside>'),
              s.status,
              Object.entries(s.attributes)
                .filter(([k]) => k !== 'gen_ai.response.time_to_first_chunk')
                .map(([k, v]) => [k, idless(v)])
                .sort(([a], [b]) => String(a).localeCompare(String(b))),
              s.events.map((e) => e.name),
            ]),
          )
          .sort(),
      );
    })
    .sort();
}
