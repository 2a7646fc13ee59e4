// Test harness: real SDK providers with in-memory exporters, injected into the sink (no globals).
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { Attributes } from '@opentelemetry/api';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import type { DataPoint, Histogram, MetricData } from '@opentelemetry/sdk-metrics';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { AgentRunIdGenerator } from '../../src/index.js';
import type { AgentOtelSinkOptions } from '../../src/index.js';
// The harness reaches the sources' entry points too (reject, forgetRun, …).
import { createBridgeSink } from '../../src/sink/bridge-sink.js';
import type { BridgeSink, BridgeSinkHooks } from '../../src/sink/bridge-sink-api.js';

/** A metric reader the test collects from by hand. */
export class ManualReader extends MetricReader {
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
}

export interface MetricPoint {
  readonly name: string;
  readonly unit: string;
  readonly type: number;
  readonly attributes: Attributes;
  /** A number for sums, a histogram for histograms. */
  readonly value: number | Histogram;
}

export interface Harness {
  readonly sink: BridgeSink;
  readonly exporter: InMemorySpanExporter;
  spans(): ReadableSpan[];
  /** Feeds NDJSON text (one event per line) through `handleJson`. */
  feed(ndjson: string): ReturnType<BridgeSink['handleJson']>[];
  metrics(): Promise<MetricData[]>;
  points(name: string): Promise<MetricPoint[]>;
  /** Sum of a counter's points whose attributes include `match`. */
  sum(name: string, match?: Attributes): Promise<number>;
}

/**
 * A sink with in-memory exporters. Events are applied as they arrive (no reorder window, no grace
 * period) unless the options say otherwise: the mapping is tested on its own here, the reordering
 * in test/mapping/reorder.test.ts.
 */
export function createHarness(
  options: AgentOtelSinkOptions = {},
  hooks: BridgeSinkHooks = {},
): Harness {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({
    idGenerator: new AgentRunIdGenerator(),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const reader = new ManualReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const sink = createBridgeSink(
    {
      tracerProvider,
      meterProvider,
      env: {},
      reorderWindowMillis: 0,
      lateGraceMillis: 0,
      ...options,
    },
    hooks,
  );
  const metrics = async () => {
    const { resourceMetrics } = await reader.collect();
    return resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
  };
  const points = async (name: string) =>
    (await metrics())
      .filter((m) => m.descriptor.name === name)
      .flatMap((m) =>
        (m.dataPoints as DataPoint<number | Histogram>[]).map((p) => ({
          name,
          unit: m.descriptor.unit,
          type: m.dataPointType,
          attributes: p.attributes,
          value: p.value,
        })),
      );
  return {
    sink,
    exporter,
    spans: () => exporter.getFinishedSpans(),
    feed: (ndjson) =>
      ndjson
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => sink.handleJson(l)),
    metrics,
    points,
    async sum(name, match = {}) {
      return (await points(name))
        .filter((p) => Object.entries(match).every(([k, v]) => p.attributes[k] === v))
        .reduce((total, p) => total + (typeof p.value === 'number' ? p.value : p.value.count), 0);
    },
  };
}

/** A span tree reduced to what the contract pins, for snapshots. */
export interface SpanNode {
  name: string;
  kind: string;
  status: string;
  start: string;
  end: string;
  attributes: Attributes;
  events: { name: string; time: string; attributes: Attributes }[];
  children: SpanNode[];
}

const hr = (t: [number, number]) => `${t[0]}.${String(t[1]).padStart(9, '0')}`;

export function toSpanTree(spans: readonly ReadableSpan[]): SpanNode[] {
  const byParent = new Map<string | undefined, ReadableSpan[]>();
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  for (const span of spans) {
    const parentId = span.parentSpanContext?.spanId;
    const key = parentId !== undefined && ids.has(parentId) ? parentId : undefined;
    byParent.set(key, [...(byParent.get(key) ?? []), span]);
  }
  const build = (span: ReadableSpan): SpanNode => ({
    name: span.name,
    kind: SpanKind[span.kind],
    status:
      span.status.code === SpanStatusCode.ERROR
        ? `ERROR${span.status.message ? `: ${span.status.message}` : ''}`
        : SpanStatusCode[span.status.code],
    start: hr(span.startTime),
    end: hr(span.endTime),
    attributes: Object.fromEntries(
      Object.entries(span.attributes).sort(([a], [b]) => a.localeCompare(b)),
    ),
    events: span.events.map((e) => ({
      name: e.name,
      time: hr(e.time),
      attributes: e.attributes ?? {},
    })),
    children: (byParent.get(span.spanContext().spanId) ?? [])
      .sort(
        (a, b) =>
          a.startTime[0] - b.startTime[0] ||
          a.startTime[1] - b.startTime[1] ||
          a.name.localeCompare(b.name),
      )
      .map(build),
  });
  return (byParent.get(undefined) ?? [])
    .sort((a, b) =>
      String(a.attributes['agent.run.id']).localeCompare(String(b.attributes['agent.run.id'])),
    )
    .map(build);
}

/** Every span must be ended; the in-memory exporter only sees ended spans, so compare counts. */
export function spanByName(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const span = spans.find((s) => s.name === name);
  if (span === undefined)
    throw new Error(`no span named ${name}; have ${spans.map((s) => s.name).join(', ')}`);
  return span;
}
