// The bridge's OTLP/protobuf trace encoder writes, byte for byte, what the OpenTelemetry JS
// serializer writes for the same spans: random spans of every shape (ids, kinds, times up to
// 2^32 s, every attribute value type, unicode, events, links, trace state, remote parents,
// several resources and scopes), then the spans the bridge itself makes from a real log.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import type { Attributes, HrTime, Link, SpanContext } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeTraceRequest } from '../../../src/telemetry/otlp/otlp-trace-encoder.js';
import { createHarness } from '../../helpers/harness.js';

const hex = (bytes: number) =>
  fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString('hex'));
const text = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ minLength: 60, maxLength: 300 }),
  fc.string({ unit: fc.constantFrom('\ud800', '\udfff', 'é', 'a'), maxLength: 10 }),
);
const time: fc.Arbitrary<HrTime> = fc.tuple(
  fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  fc.integer({ min: 0, max: 999_999_999 }),
);
const scalar = fc.oneof(
  text,
  fc.boolean(),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 }),
  fc.maxSafeInteger(),
  fc.integer().map((n) => n * 2 ** 20),
  fc.double(),
  fc.constantFrom(-(2 ** 53), 2 ** 60, -0, Number.NaN, Infinity),
  fc.uint8Array({ maxLength: 20 }),
);
const value = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(fc.oneof(scalar, fc.constant(null)), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 3 }),
  ),
})).value;
const attributes = fc.dictionary(fc.string({ maxLength: 30 }), value, {
  maxKeys: 8,
}) as fc.Arbitrary<Attributes>;
const traceState = fc.option(
  fc.string({ minLength: 1, maxLength: 30 }).map((s) => ({ serialize: () => s })),
  { nil: undefined },
);
const spanContext = fc.record({
  traceId: hex(16),
  spanId: hex(8),
  traceFlags: fc.constantFrom(TraceFlags.NONE, TraceFlags.SAMPLED, 255),
  isRemote: fc.option(fc.boolean(), { nil: undefined }),
  traceState,
}) as fc.Arbitrary<SpanContext>;
const event: fc.Arbitrary<TimedEvent> = fc.record(
  {
    name: text,
    time,
    attributes,
    droppedAttributesCount: fc.nat(5),
  },
  { requiredKeys: ['name', 'time'] },
);
const link: fc.Arbitrary<Link> = fc.record(
  { context: spanContext, attributes, droppedAttributesCount: fc.nat(5) },
  { requiredKeys: ['context'] },
);
const resources = [
  resourceFromAttributes({ 'service.name': 'bridge', 'service.instance.id': 'é-1' }),
  resourceFromAttributes({}),
];
const scopes = [
  {
    name: 'agent-otel-bridge',
    version: '0.1.0',
    schemaUrl: 'https://opentelemetry.io/schemas/1.37.0',
  },
  { name: 'other' },
  { name: 'with-attributes', version: '', attributes: { a: 1 } },
];

const span: fc.Arbitrary<ReadableSpan> = fc
  .record({
    context: spanContext,
    parent: fc.option(spanContext, { nil: undefined }),
    name: text,
    kind: fc.constantFrom(...Object.values(SpanKind).filter((k) => typeof k === 'number')),
    startTime: time,
    endTime: time,
    attributes,
    droppedAttributesCount: fc.nat(3),
    events: fc.array(event, { maxLength: 4 }),
    droppedEventsCount: fc.nat(3),
    links: fc.array(link, { maxLength: 2 }),
    droppedLinksCount: fc.nat(3),
    status: fc.record(
      {
        code: fc.constantFrom(SpanStatusCode.UNSET, SpanStatusCode.OK, SpanStatusCode.ERROR),
        message: text,
      },
      { requiredKeys: ['code'] },
    ),
    resource: fc.nat(resources.length - 1),
    scope: fc.nat(scopes.length - 1),
  })
  .map(
    (s) =>
      ({
        name: s.name,
        kind: s.kind,
        spanContext: () => s.context,
        parentSpanContext: s.parent,
        startTime: s.startTime,
        endTime: s.endTime,
        status: s.status,
        attributes: s.attributes,
        links: s.links,
        events: s.events,
        duration: [0, 0],
        ended: true,
        resource: resources[s.resource]!,
        instrumentationScope: scopes[s.scope]!,
        droppedAttributesCount: s.droppedAttributesCount,
        droppedEventsCount: s.droppedEventsCount,
        droppedLinksCount: s.droppedLinksCount,
      }) as ReadableSpan,
  );

const official = (spans: ReadableSpan[]) =>
  Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!);

describe('OTLP/protobuf trace encoder', () => {
  it('encodes random spans byte for byte as the OpenTelemetry serializer does', () => {
    fc.assert(
      fc.property(fc.array(span, { maxLength: 12 }), (spans) => {
        expect(Buffer.from(encodeTraceRequest(spans)).equals(official(spans))).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });

  it('encodes spans of every length class (a length of one byte to four) as the serializer does', () => {
    // A span's length is reserved as two bytes: spans under 128 bytes, near 16 384 and past it
    // take another size, and are moved.
    const padded = fc
      .tuple(
        span,
        fc.oneof(
          fc.integer({ min: 0, max: 200 }),
          fc.integer({ min: 16_000, max: 17_000 }),
          fc.constantFrom(2_097_200),
        ),
      )
      .map(([s, length]) => ({
        ...s,
        spanContext: s.spanContext,
        attributes: length === 0 ? {} : { ...s.attributes, pad: 'p'.repeat(length) },
      }));
    fc.assert(
      fc.property(fc.array(padded, { minLength: 1, maxLength: 3 }), (spans) => {
        expect(Buffer.from(encodeTraceRequest(spans)).equals(official(spans))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('encodes large batches (lengths of several bytes) as the serializer does', () => {
    fc.assert(
      fc.property(fc.array(span, { minLength: 200, maxLength: 400 }), (spans) => {
        expect(Buffer.from(encodeTraceRequest(spans)).equals(official(spans))).toBe(true);
      }),
      { numRuns: 10 },
    );
  });

  it("encodes the bridge's own spans of a real log as the serializer does", () => {
    const h = createHarness();
    for (const file of ['tools-success-failure', 'doom-loop', 'breaker', 'variants'])
      h.feed(
        readFileSync(
          fileURLToPath(new URL(`../../fixtures/behest/${file}.ndjson`, import.meta.url)),
          'utf8',
        ),
      );
    const spans = h.spans();
    expect(spans.length).toBeGreaterThan(20);
    expect(Buffer.from(encodeTraceRequest(spans)).equals(official(spans))).toBe(true);
  });
});
