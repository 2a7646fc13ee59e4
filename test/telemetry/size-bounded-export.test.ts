// Requests that backends accept: a batch whose encoding would pass the body limit is sent in
// parts below it, measured with the real OTLP encoder on generated spans of random sizes.
import type { ExportResult } from '@opentelemetry/core';
import { ExportResultCode } from '@opentelemetry/core';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeTraceRequest } from '../../src/telemetry/otlp/otlp-trace-encoder.js';
import { OtlpProtoTraceExporter } from '../../src/telemetry/otlp/otlp-proto-trace-exporter.js';
import {
  estimateSpanBytes,
  SizeBoundedSpanExporter,
} from '../../src/telemetry/export/size-bounded-span-exporter.js';

/** Spans with attributes and events of the given text sizes (ASCII and multi-byte mixed). */
function makeSpans(shapes: readonly { text: number; events: number; wide: boolean }[]) {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const tracer = provider.getTracer('t');
  for (const [i, shape] of shapes.entries()) {
    const text = (shape.wide ? 'é中😀' : 'abc')
      .repeat(Math.ceil(shape.text / 3))
      .slice(0, shape.text);
    const span = tracer.startSpan(`chat ${i}`, {
      attributes: { 'gen_ai.output.messages': text, 'gen_ai.usage.input_tokens': i },
    });
    for (let e = 0; e < shape.events; e += 1)
      span.addEvent('agent.tool_call.requested', { note: text.slice(0, 200) });
    span.end();
  }
  return exporter.getFinishedSpans();
}

/** Records every request it is given, encoded, and answers as told. */
class Recording implements SpanExporter {
  readonly requests: { spans: ReadableSpan[]; bytes: number }[] = [];
  constructor(
    private readonly answer: (n: number) => ExportResult = () => ({
      code: ExportResultCode.SUCCESS,
    }),
  ) {}
  export(spans: ReadableSpan[], done: (r: ExportResult) => void) {
    this.requests.push({ spans, bytes: encodeTraceRequest(spans).length });
    done(this.answer(this.requests.length));
  }
  shutdown = () => Promise.resolve();
}

/** `Recording`, measuring its requests exactly (as the OTLP/protobuf exporter does). */
class MeasuringRecording extends Recording {
  measured = 0;
  measure(spans: ReadableSpan[], _keepWithin: number): number {
    this.measured += 1;
    return encodeTraceRequest(spans).length;
  }
}

const exportAll = (exporter: SpanExporter, spans: ReadableSpan[]) =>
  new Promise<ExportResult>((resolve) => exporter.export(spans, resolve));

describe('SizeBoundedSpanExporter', () => {
  it('never sends a request above the limit, and sends every span once, in order', async () => {
    let split = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ text: fc.nat(20_000), events: fc.nat(20), wide: fc.boolean() }), {
          minLength: 1,
          maxLength: 120,
        }),
        fc.integer({ min: 64 * 1024, max: 1024 * 1024 }),
        fc.boolean(),
        async (shapes, limit, measuring) => {
          const spans = makeSpans(shapes);
          const inner = measuring ? new MeasuringRecording() : new Recording();
          const result = await exportAll(new SizeBoundedSpanExporter(inner, limit), spans);
          expect(result.code).toBe(ExportResultCode.SUCCESS);
          expect(inner.requests.flatMap((r) => r.spans)).toEqual(spans);
          if (inner.requests.length > 1) split += 1;
          for (const request of inner.requests) {
            // A span alone may pass the limit; a request of several never does.
            if (request.spans.length > 1) expect(request.bytes).toBeLessThanOrEqual(limit);
          }
          for (const span of spans)
            expect(estimateSpanBytes(span)).toBeGreaterThanOrEqual(
              encodeTraceRequest([span]).length - 200,
            );
        },
      ),
      { numRuns: 40 },
    );
    // The generated batches did reach the limits they were tested against (most of the 40 split:
    // about 600 KB on average against 64 KiB–1 MiB; none splitting would mean a broken generator).
    expect(split).toBeGreaterThan(0);
  });

  it('answers the first failure, and sends nothing after it', async () => {
    const spans = makeSpans(
      Array.from({ length: 40 }, () => ({ text: 20_000, events: 0, wide: false })),
    );
    const inner = new Recording((n) =>
      n === 2
        ? { code: ExportResultCode.FAILED, error: new Error('413') }
        : { code: ExportResultCode.SUCCESS },
    );
    const result = await exportAll(new SizeBoundedSpanExporter(inner, 100_000), spans);
    expect(result.code).toBe(ExportResultCode.FAILED);
    expect(inner.requests).toHaveLength(2);
  });

  it('sends a batch the OTLP exporter measures within the limit whole, as the bytes it measured', async () => {
    // Short ASCII texts: the estimate (3 bytes a character) is about three times the encoding.
    const spans = makeSpans(
      Array.from({ length: 300 }, () => ({ text: 60, events: 2, wide: false })),
    );
    const exact = encodeTraceRequest(spans).length;
    const estimated = spans.reduce((sum, span) => sum + estimateSpanBytes(span), 0);
    const limit = Math.round((exact + estimated) / 2);
    expect(estimated).toBeGreaterThan(limit);
    const bodies: Buffer[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks));
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const otlp = new OtlpProtoTraceExporter({ url: `http://127.0.0.1:${port}/v1/traces` });
      const result = await exportAll(new SizeBoundedSpanExporter(otlp, limit), spans);
      expect(result.code).toBe(ExportResultCode.SUCCESS);
      expect(bodies).toHaveLength(1);
      expect(bodies[0]!.equals(Buffer.from(encodeTraceRequest(spans)))).toBe(true);
      // Past the limit, the same batch is still split by the estimates.
      const tight = await exportAll(new SizeBoundedSpanExporter(otlp, exact - 1), spans);
      expect(tight.code).toBe(ExportResultCode.SUCCESS);
      expect(bodies.length).toBeGreaterThan(2);
      for (const body of bodies.slice(1)) expect(body.length).toBeLessThan(exact);
      await otlp.shutdown();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('passes a batch below the limit through as one request', async () => {
    const spans = makeSpans([
      { text: 100, events: 1, wide: false },
      { text: 10, events: 0, wide: true },
    ]);
    const inner = new Recording();
    await exportAll(new SizeBoundedSpanExporter(inner), spans);
    expect(inner.requests).toHaveLength(1);
    expect(inner.requests[0]!.spans).toBe(spans);
  });
});
