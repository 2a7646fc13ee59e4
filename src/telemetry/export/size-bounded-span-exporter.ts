import type { Attributes } from '@opentelemetry/api';
import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

/**
 * Bytes of one export request at most, by default: below the 4 MiB that gRPC servers (the
 * Collector's OTLP receiver among them) take by default and the smaller limits of hosted backends.
 */
export const DEFAULT_MAX_EXPORT_BYTES = 3 * 1024 * 1024;

/** Framing of one span beyond its strings (ids, times, kind, status, field tags). */
const SPAN_OVERHEAD_BYTES = 96;
const ATTRIBUTE_OVERHEAD_BYTES = 8;

/**
 * An exporter that can tell the exact size of the request a batch makes, encoding it once and
 * keeping that encoding for the export that follows where it is at most `keepWithin` bytes (a
 * batch past it is split, and its encoding would only be held).
 */
export interface MeasuredSpanExporter extends SpanExporter {
  measure(spans: ReadableSpan[], keepWithin: number): number;
}

/**
 * Splits a batch whose encoding would pass `maxBytes` into requests below it, sent one after the
 * other (a span larger than the limit on its own, which the content and text limits make rare,
 * goes alone). The caller hears one outcome: success when every part was taken, else the first
 * failure (a retry sends the whole batch again; parts taken twice are the same spans, same ids).
 * Where the exporter measures its requests, a batch within the limit goes as one without an
 * estimate of each span; the others are split by the estimates.
 */
export class SizeBoundedSpanExporter implements SpanExporter {
  constructor(
    private readonly inner: SpanExporter,
    private readonly maxBytes: number = DEFAULT_MAX_EXPORT_BYTES,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const inner = this.inner as Partial<MeasuredSpanExporter>;
    const parts =
      inner.measure !== undefined && inner.measure(spans, this.maxBytes) <= this.maxBytes
        ? [spans]
        : splitBySize(spans, this.maxBytes);
    if (parts.length === 1) {
      this.inner.export(spans, done);
      return;
    }
    let next = 0;
    const send = (): void => {
      const part = parts[next];
      next += 1;
      if (part === undefined) {
        done({ code: ExportResultCode.SUCCESS });
        return;
      }
      this.inner.export(part, (result) =>
        result.code === ExportResultCode.SUCCESS ? send() : done(result),
      );
    };
    send();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** Consecutive parts of `spans`, each estimated below `maxBytes` encoded. */
export function splitBySize(spans: ReadableSpan[], maxBytes: number): ReadableSpan[][] {
  const parts: ReadableSpan[][] = [];
  let part: ReadableSpan[] = [];
  let bytes = 0;
  for (const span of spans) {
    const size = estimateSpanBytes(span);
    if (part.length > 0 && bytes + size > maxBytes) {
      parts.push(part);
      part = [];
      bytes = 0;
    }
    part.push(span);
    bytes += size;
  }
  parts.push(part);
  return parts;
}

/** An upper estimate of a span's protobuf encoding (strings counted in UTF-8 bytes). */
export function estimateSpanBytes(span: ReadableSpan): number {
  let bytes = SPAN_OVERHEAD_BYTES + textBytes(span.name) + attributesBytes(span.attributes);
  for (const event of span.events)
    bytes += SPAN_OVERHEAD_BYTES / 2 + textBytes(event.name) + attributesBytes(event.attributes);
  for (const link of span.links)
    bytes += SPAN_OVERHEAD_BYTES / 2 + attributesBytes(link.attributes);
  return bytes + textBytes(span.status.message ?? '');
}

function attributesBytes(attributes: Attributes | undefined): number {
  if (attributes === undefined) return 0;
  let bytes = 0;
  for (const key in attributes)
    bytes += ATTRIBUTE_OVERHEAD_BYTES + textBytes(key) + valueBytes(attributes[key]);
  return bytes;
}

function valueBytes(value: unknown): number {
  if (typeof value === 'string') return textBytes(value);
  if (Array.isArray(value)) {
    let bytes = 4;
    for (const item of value) bytes += 4 + (typeof item === 'string' ? textBytes(item) : 10);
    return bytes;
  }
  return 10;
}

/** UTF-8 bytes of a text; short ones by a bound (at most 3 bytes per UTF-16 unit). */
function textBytes(text: string): number {
  return text.length < 64 ? text.length * 3 : Buffer.byteLength(text);
}
