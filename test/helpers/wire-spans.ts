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
