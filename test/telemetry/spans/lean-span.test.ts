// The lean spans that `startTelemetry` starts skip the trace SDK's per-value checks where a value is
// plain; they must never record anything else than the SDK's own span would. Generated programs
// of span operations (parents, roots, links, attributes of every kind the API lets through and
// some it does not, events, statuses, exceptions, renames, ends, operations after the end, the
// caller's attributes changed after the start) run against the SDK's provider and the lean one,
// under generated limits and samplers: the spans exported, the spans handed back, and the
// diagnostics logged must be the same.
import { context, diag, DiagLogLevel, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import type { Attributes, Context, Link, Span } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  InMemorySpanExporter,
  ParentBasedSampler,
  SamplingDecision,
  SimpleSpanProcessor,
  StackContextManager,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { ReadableSpan, Sampler, SpanLimits } from '@opentelemetry/sdk-trace';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LeanTracerProvider } from '../../../src/telemetry/spans/lean-tracer-provider.js';

type Value = unknown;

const key = fc.oneof(
  { arbitrary: fc.constantFrom('a', 'b', 'gen_ai.system', 'c.d'), weight: 6 },
  { arbitrary: fc.constantFrom('', 'toString', '__proto__x'), weight: 1 },
  { arbitrary: fc.string({ maxLength: 4 }), weight: 1 },
);

const scalar = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom('', 'x'.repeat(20)),
  fc.integer(),
  fc.double(),
  fc.boolean(),
);

/** Values of every kind: plain ones mostly, then arrays, maps, bytes, and what no API allows. */
const value: fc.Arbitrary<Value> = fc.oneof(
  { arbitrary: scalar, weight: 8 },
  {
    arbitrary: fc.array(fc.oneof(fc.string({ maxLength: 12 }), fc.constant(null)), {
      maxLength: 3,
    }),
    weight: 2,
  },
  {
    arbitrary: fc.array(fc.oneof(scalar, fc.constant(null), fc.constant(undefined)), {
      maxLength: 3,
    }),
    weight: 1,
  },
  { arbitrary: fc.dictionary(fc.string({ maxLength: 2 }), scalar, { maxKeys: 2 }), weight: 1 },
  {
    arbitrary: fc.constantFrom<Value>(
      null,
      undefined,
      new Uint8Array([1, 2, 3]),
      new Date(0),
      Symbol.for('x'),
      10n,
      () => 1,
      [[1, 'a'], { k: 'v' }],
      // Arrays of more than one type: a span keeps them, an event does not.
      ['a', 1],
      [true, null, 0],
    ),
    weight: 1,
  },
);

const attributes = fc.oneof(
  { arbitrary: fc.dictionary(key, value, { maxKeys: 5 }), weight: 8 },
  { arbitrary: fc.constantFrom<unknown>(undefined, null, 'text', [1, 2]), weight: 1 },
);

const hrTime = fc.tuple(
  fc.integer({ min: 1_600_000_000, max: 1_900_000_000 }),
  fc.integer({ min: 0, max: 999_999_999 }),
);
/**
 * Times of every kind: `HrTime`s mostly, epoch milliseconds, dates, milliseconds since the process
 * started (read against the clock) and none (the clock's; the clocks are faked and advance by the
 * program's steps).
 */
const time = fc.oneof(
  { arbitrary: hrTime, weight: 6 },
  { arbitrary: fc.integer({ min: 0, max: 5_000 }), weight: 1 },
  { arbitrary: fc.constant(undefined), weight: 1 },
  { arbitrary: fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }), weight: 1 },
  {
    arbitrary: fc
      .integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 })
      .map((ms) => new Date(ms)),
    weight: 1,
  },
);

const start = fc.record({
  name: fc.constantFrom('invoke_agent', 'chat', 'execute_tool'),
  kind: fc.option(fc.constantFrom(SpanKind.INTERNAL, SpanKind.CLIENT), { nil: undefined }),
  attributes,
  links: fc.option(fc.array(fc.record({ to: fc.nat(), attributes }), { maxLength: 3 }), {
    nil: undefined,
  }),
  root: fc.option(fc.boolean(), { nil: undefined }),
  parent: fc.option(fc.nat(), { nil: undefined }),
  /** The parent as a span, as a remote context (sampled or not), or as a context of invalid ids. */
  parentAs: fc.constantFrom('span', 'remote', 'remote unsampled', 'local unsampled', 'invalid'),
  startTime: fc.option(time, { nil: undefined }),
  mutateAfter: fc.boolean(),
});

const operation = fc.oneof(
  fc.record({ op: fc.constant('start' as const), start }),
  fc.record({ op: fc.constant('setAttribute' as const), span: fc.nat(), key, value }),
  fc.record({ op: fc.constant('setAttributes' as const), span: fc.nat(), attributes }),
  fc.record({
    op: fc.constant('addEvent' as const),
    span: fc.nat(),
    name: fc.constantFrom('gen_ai.content.prompt', 'x'),
    second: fc.oneof(attributes, time),
    third: fc.option(time, { nil: undefined }),
  }),
  fc.record({ op: fc.constant('addLink' as const), span: fc.nat(), to: fc.nat(), attributes }),
  fc.record({
    op: fc.constant('setStatus' as const),
    span: fc.nat(),
    code: fc.constantFrom(0, 1, 2),
    message: fc.oneof(fc.string({ maxLength: 5 }), fc.constant(undefined), fc.constant(7)),
  }),
  fc.record({
    op: fc.constant('updateName' as const),
    span: fc.nat(),
    name: fc.string({ maxLength: 5 }),
  }),
  fc.record({
    op: fc.constant('recordException' as const),
    span: fc.nat(),
    exception: fc.constantFrom<unknown>(
      'boom',
      { message: 'm', name: 'E' },
      { code: 'E42', name: 'Error', message: 'm', stack: 's' },
      { code: 42 },
      {},
    ),
    time: fc.option(time, { nil: undefined }),
  }),
  fc.record({
    op: fc.constant('end' as const),
    span: fc.nat(),
    time: fc.option(time, { nil: undefined }),
  }),
);

type Operation = typeof operation extends fc.Arbitrary<infer O> ? O : never;

/** A count limit: the SDK's default or one small enough to be reached. */
const countLimit = fc.oneof(fc.constant(128), fc.integer({ min: 0, max: 3 }));
const limits: fc.Arbitrary<SpanLimits | undefined> = fc.option(
  fc.record({
    attributeCountLimit: countLimit,
    attributeValueLengthLimit: fc.oneof(fc.constant(Infinity), fc.integer({ min: -1, max: 4 })),
    eventCountLimit: countLimit,
    linkCountLimit: countLimit,
    attributePerEventCountLimit: countLimit,
    attributePerLinkCountLimit: countLimit,
  }),
  { nil: undefined, freq: 3 },
);

/** A sampler that records without sampling, adding attributes and a trace state of its own. */
const recordingOnly: Sampler = {
  shouldSample: (_context, traceId) => ({
    decision: traceId.endsWith('1') ? SamplingDecision.RECORD : SamplingDecision.RECORD_AND_SAMPLED,
    attributes: traceId.endsWith('2') ? { 'sampler.added': 'yes', a: 1 } : {},
  }),
  toString: () => 'recordingOnly',
};

/** A sampler that tells, in an attribute, whether the context it was given holds a span. */
const contextTelling: Sampler = {
  shouldSample: (context) => ({
    decision: SamplingDecision.RECORD_AND_SAMPLED,
    attributes: { 'sampler.parent_seen': trace.getSpan(context) !== undefined },
  }),
  toString: () => 'contextTelling',
};

const samplers: readonly (() => Sampler | undefined)[] = [
  () => contextTelling,
  () => undefined,
  () => new AlwaysOnSampler(),
  () => new AlwaysOffSampler(),
  () => new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0.5) }),
  () => recordingOnly,
];

/** Ids counted from 1, the same on both sides. */
function countingIds() {
  let n = 0;
  return {
    generateTraceId: () => (n += 1).toString(16).padStart(32, '0'),
    generateSpanId: () => (n += 1).toString(16).padStart(16, '0'),
  };
}

interface Outcome {
  readonly exported: unknown[];
  readonly returned: unknown[];
  readonly diagnostics: string[];
}

function run(
  lean: boolean,
  operations: readonly Operation[],
  spanLimits: SpanLimits | undefined,
  sampler: Sampler | undefined,
): Outcome {
  const exporter = new InMemorySpanExporter();
  const options = {
    resource: resourceFromAttributes({ 'service.name': 'lean-span-test' }),
    idGenerator: countingIds(),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
    ...(spanLimits === undefined ? {} : { spanLimits }),
    ...(sampler === undefined ? {} : { sampler }),
  };
  const provider = lean ? new LeanTracerProvider(options) : new TracerProvider(options);
  const tracer = provider.getTracer('lean-span-test', '1.0.0', { schemaUrl: 'https://x/1' });
  const diagnostics: string[] = [];
  const log = (level: string) => (message: string) => diagnostics.push(`${level} ${message}`);
  diag.setLogger(
    {
      error: log('error'),
      warn: log('warn'),
      info: log('info'),
      debug: log('debug'),
      verbose: log('verbose'),
    },
    { logLevel: DiagLogLevel.ALL, suppressOverrideMessage: true },
  );
  const spans: Span[] = [];
  const contextOf = (index: number | undefined, as: string): Context => {
    if (index === undefined || spans.length === 0) return ROOT_CONTEXT;
    const span = spans[index % spans.length]!;
    const ids = span.spanContext();
    switch (as) {
      case 'remote':
        return trace.setSpanContext(ROOT_CONTEXT, { ...ids, isRemote: true });
      case 'remote unsampled':
        return trace.setSpanContext(ROOT_CONTEXT, { ...ids, traceFlags: 0, isRemote: true });
      case 'local unsampled':
        return trace.setSpanContext(ROOT_CONTEXT, { ...ids, traceFlags: 0 });
      case 'invalid':
        return trace.setSpanContext(ROOT_CONTEXT, { ...ids, traceId: '0'.repeat(32) });
      default:
        return trace.setSpan(ROOT_CONTEXT, span);
    }
  };
  const linkTo = (to: number, attributes: unknown): Link => ({
    context:
      spans.length === 0
        ? trace
            .wrapSpanContext({ traceId: 'f'.repeat(32), spanId: 'e'.repeat(16), traceFlags: 1 })
            .spanContext()
        : spans[to % spans.length]!.spanContext(),
    attributes: attributes as Attributes,
  });
  try {
    for (const operation of operations) {
      vi.advanceTimersByTime(operation.op.length);
      if (operation.op === 'start') {
        const s = operation.start;
        const attributes = s.attributes as Attributes | undefined;
        const span = tracer.startSpan(
          s.name,
          {
            ...(s.kind === undefined ? {} : { kind: s.kind }),
            ...(attributes === undefined ? {} : { attributes }),
            ...(s.links === undefined
              ? {}
              : { links: s.links.map((l) => linkTo(l.to, l.attributes)) }),
            ...(s.root === undefined ? {} : { root: s.root }),
            ...(s.startTime === undefined ? {} : { startTime: s.startTime }),
          },
          contextOf(s.parent, s.parentAs),
        );
        // What the caller does with its own attributes afterwards must not reach the span.
        if (s.mutateAfter && attributes !== null && typeof attributes === 'object') {
          for (const value of Object.values(attributes))
            if (Array.isArray(value)) value.push('later');
          (attributes as Record<string, unknown>)['added.later'] = 'later';
        }
        spans.push(span);
        continue;
      }
      if (spans.length === 0) continue;
      const span = spans[operation.span % spans.length]!;
      switch (operation.op) {
        case 'setAttribute':
          span.setAttribute(operation.key, operation.value);
          break;
        case 'setAttributes':
          span.setAttributes(operation.attributes as Attributes);
          break;
        case 'addEvent':
          span.addEvent(operation.name, operation.second as Attributes, operation.third);
          break;
        case 'addLink':
          span.addLink(linkTo(operation.to, operation.attributes));
          break;
        case 'setStatus':
          span.setStatus({ code: operation.code, message: operation.message as string });
          break;
        case 'updateName':
          span.updateName(operation.name);
          break;
        case 'recordException':
          span.recordException(operation.exception as Error, operation.time);
          break;
        case 'end':
          span.end(operation.time);
          break;
      }
    }
  } finally {
    diag.disable();
  }
  return {
    exported: exporter.getFinishedSpans().map(recordOf),
    returned: spans.map((s) => ({ context: s.spanContext(), recording: s.isRecording() })),
    diagnostics,
  };
}

/** Everything an exporter reads of a span. */
function recordOf(span: ReadableSpan) {
  return {
    name: span.name,
    kind: span.kind,
    spanContext: span.spanContext(),
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    duration: span.duration,
    ended: span.ended,
    status: span.status,
    attributes: span.attributes,
    attributeKeys: Object.keys(span.attributes),
    links: span.links,
    events: span.events.map((e) => ({ ...e, keys: Object.keys(e) })),
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
    resource: span.resource.attributes,
    scope: span.instrumentationScope,
  };
}

describe('lean spans against the trace SDK', () => {
  afterEach(() => {
    diag.disable();
    context.disable();
    vi.useRealTimers();
  });

  it('record, hand back and log what the SDK does, on generated programs, limits and samplers', () => {
    fc.assert(
      fc.property(
        fc.array(operation, { minLength: 1, maxLength: 30 }),
        limits,
        fc.nat({ max: samplers.length - 1 }),
        (program, spanLimits, samplerIndex) => {
          // Each side gets its own copy (the program's values are changed by the mutations) and
          // the same faked clocks.
          const clocks = () =>
            vi.useFakeTimers({ toFake: ['Date', 'performance'], now: 1_750_000_000_000 });
          clocks();
          const sdk = run(
            false,
            structuredCloneProgram(program),
            spanLimits,
            samplers[samplerIndex]!(),
          );
          clocks();
          const lean = run(
            true,
            structuredCloneProgram(program),
            spanLimits,
            samplers[samplerIndex]!(),
          );
          expect(lean.exported).toStrictEqual(sdk.exported);
          expect(lean.returned).toStrictEqual(sdk.returned);
          expect(lean.diagnostics).toStrictEqual(sdk.diagnostics);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('read times from the clock as the SDK does where none is given', () => {
    for (const lean of [false, true]) {
      const exporter = new InMemorySpanExporter();
      const options = { spanProcessors: [new SimpleSpanProcessor({ exporter })] };
      const provider = lean ? new LeanTracerProvider(options) : new TracerProvider(options);
      const tracer = provider.getTracer('clock');
      const before = Date.now();
      const unstamped = tracer.startSpan('unstamped');
      for (let i = 0; i < 8; i += 1) unstamped.addEvent('e');
      unstamped.end();
      const stamped = tracer.startSpan('stamped', { startTime: [1_700_000_000, 0] });
      stamped.addEvent('e');
      stamped.end(performance.now());
      const after = Date.now();
      const [first, second] = exporter.getFinishedSpans();
      const millis = (t: readonly [number, number]) => t[0] * 1000 + t[1] / 1e6;
      for (const t of [first!.startTime, first!.endTime, first!.events[0]!.time, second!.endTime]) {
        expect(millis(t)).toBeGreaterThanOrEqual(before - 1);
        expect(millis(t)).toBeLessThanOrEqual(after + 1);
      }
      expect(millis(second!.events[0]!.time)).toBeGreaterThanOrEqual(before - 1);
      expect(second!.startTime).toStrictEqual([1_700_000_000, 0]);
      expect(first!.duration[0]).toBeGreaterThanOrEqual(0);
      // Started from the clocks: later times are the start plus the performance clock's time since
      // (finer than a millisecond). Started with a time of its own: later ones are the wall clock's.
      expect(first!.events.some((e) => e.time[1] % 1e6 !== 0)).toBe(true);
      expect(second!.events[0]!.time[1] % 1e6).toBe(0);
    }
  });

  it('keep the active context where none is passed, and run startActiveSpan as the SDK does', () => {
    context.setGlobalContextManager(new StackContextManager().enable());
    for (const lean of [false, true]) {
      const exporter = new InMemorySpanExporter();
      const options = {
        idGenerator: countingIds(),
        spanProcessors: [new SimpleSpanProcessor({ exporter })],
      };
      const provider = lean ? new LeanTracerProvider(options) : new TracerProvider(options);
      const tracer = provider.getTracer('active');
      const answer = tracer.startActiveSpan('outer', (outer) => {
        const inner = tracer.startSpan('inner');
        inner.end();
        outer.end();
        return trace.getActiveSpan() === outer ? 'active' : 'not active';
      });
      expect(answer).toBe('active');
      const [inner, outer] = exporter.getFinishedSpans();
      expect(inner!.parentSpanContext?.spanId).toBe(outer!.spanContext().spanId);
      expect(context.active()).toBe(ROOT_CONTEXT);
    }
  });
});

/** A copy of the program whose values can be changed without touching the other side's. */
function structuredCloneProgram(program: readonly Operation[]): Operation[] {
  return program.map((operation) => copy(operation) as Operation);
}

function copy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copy);
  if (value instanceof Uint8Array || value instanceof Date || value === null) return value;
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = copy(v);
    return out;
  }
  return value;
}
