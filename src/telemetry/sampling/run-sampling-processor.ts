// Whole-run sampling in the bridge: a span processor that holds each run's ended spans until its
// root span ends, then keeps the whole run or drops it (`decideRun`). Head sampling decides
// before anything is known and a collector's tail sampler after a fixed wait; the bridge sees
// every run's end. Dropped spans never leave the process; metrics are not sampled (they count
// every run). Memory is bounded: past `maxHeldSpans`, the run held longest is kept, not dropped.
import type { Context, Counter, MeterProvider } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace';
import { spansByTrace } from '../export/export-watcher.js';
import type { ExportListener } from '../export/export-watcher.js';
import { decideRun, DEFAULT_MAX_HELD_SPANS } from './run-sampling-policy.js';
import type { RunSamplingPolicy, SamplingDecision, SamplingReason } from './run-sampling-policy.js';

/** Decisions remembered for runs' later spans (a run's spans end before its root, normally). */
const REMEMBERED_DECISIONS = 100_000;

export class RunSamplingProcessor implements SpanProcessor {
  private readonly held = new Map<string, ReadableSpan[]>();
  private heldSpans = 0;
  private readonly decided = new Map<string, boolean>();
  /** Traces one of whose sub-agent runs is worth keeping, and why (decided with the parent). */
  private readonly mustKeep = new Map<string, SamplingReason>();
  private readonly maxHeldSpans: number;
  private readonly runs: Counter | undefined;
  /** Runs kept and dropped so far, by reason (for summaries and tests). */
  readonly counts = { kept: 0, dropped: 0, spansDropped: 0 };

  private readonly inner: SpanProcessor;

  constructor(
    inner: SpanProcessor | readonly SpanProcessor[],
    private readonly policy: RunSamplingPolicy,
    options: { readonly meterProvider?: MeterProvider; readonly listener?: ExportListener } = {},
  ) {
    this.inner = Array.isArray(inner) ? fanOut(inner) : (inner as SpanProcessor);
    this.maxHeldSpans = policy.maxHeldSpans ?? DEFAULT_MAX_HELD_SPANS;
    this.listener = options.listener;
    this.runs = options.meterProvider
      ?.getMeter('agent-otel-bridge')
      .createCounter('agent_bridge.sampling.runs', {
        unit: '{run}',
        description: 'Runs kept or dropped by run-outcome sampling, by reason.',
      });
  }

  private readonly listener: ExportListener | undefined;

  onStart(span: Span, parentContext: Context): void {
    this.inner.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    const traceId = span.spanContext().traceId;
    const known = this.decided.get(traceId);
    if (known !== undefined) {
      if (known) this.inner.onEnd(span);
      else this.dropSpans(traceId, [span]);
      return;
    }
    if (span.attributes['agent.run.id'] === undefined) {
      this.hold(traceId, span);
      return;
    }
    if (span.attributes['agent.run.parent_id'] !== undefined) {
      // A sub-agent's run, in its parent's trace: the trace is decided with the parent run, and
      // kept if this run alone would be kept for what it is (it failed, looped, …).
      const own = decideRun(this.policy, span);
      if (own.keep && own.reason !== 'ratio' && !this.mustKeep.has(traceId))
        this.mustKeep.set(traceId, own.reason);
      this.hold(traceId, span);
      return;
    }
    const child = this.mustKeep.get(traceId);
    this.mustKeep.delete(traceId);
    const spans = this.held.get(traceId) ?? [];
    this.release(traceId);
    spans.push(span);
    const decision = decideRun(this.policy, span);
    this.settle(
      traceId,
      spans,
      child !== undefined && !(decision.keep && decision.reason !== 'ratio')
        ? { keep: true, reason: child }
        : decision,
    );
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }

  /** Runs still open at shutdown are kept (a run is never dropped undecided). */
  shutdown(): Promise<void> {
    for (const [traceId, spans] of [...this.held]) {
      this.release(traceId);
      this.settle(traceId, spans, { keep: true, reason: 'held_limit' });
    }
    return this.inner.shutdown();
  }

  /** Spans held now (for tests and the bound). */
  get heldSpanCount(): number {
    return this.heldSpans;
  }

  private hold(traceId: string, span: ReadableSpan): void {
    let spans = this.held.get(traceId);
    if (spans === undefined) this.held.set(traceId, (spans = []));
    spans.push(span);
    this.heldSpans += 1;
    while (this.heldSpans > this.maxHeldSpans) {
      const [oldest, oldestSpans] = this.held.entries().next().value!;
      this.release(oldest);
      this.settle(oldest, oldestSpans, { keep: true, reason: 'held_limit' });
    }
  }

  private release(traceId: string): void {
    const spans = this.held.get(traceId);
    if (spans === undefined) return;
    this.held.delete(traceId);
    this.mustKeep.delete(traceId);
    this.heldSpans -= spans.length;
  }

  private settle(traceId: string, spans: ReadableSpan[], decision: SamplingDecision): void {
    this.remember(traceId, decision.keep);
    this.count(decision.keep, decision.reason);
    if (decision.keep) for (const span of spans) this.inner.onEnd(span);
    else this.dropSpans(traceId, spans);
  }

  private dropSpans(traceId: string, spans: readonly ReadableSpan[]): void {
    this.counts.spansDropped += spans.length;
    // Settled for whoever waits on their export (a broker's acknowledgements, the summary).
    this.listener?.spansSampledOut?.(spansByTrace(spans));
  }

  private remember(traceId: string, keep: boolean): void {
    this.decided.delete(traceId);
    this.decided.set(traceId, keep);
    if (this.decided.size > REMEMBERED_DECISIONS)
      this.decided.delete(this.decided.keys().next().value!);
  }

  private count(keep: boolean, reason: SamplingReason): void {
    if (keep) this.counts.kept += 1;
    else this.counts.dropped += 1;
    this.runs?.add(1, {
      'agent_bridge.sampling.decision': keep ? 'kept' : 'dropped',
      'agent_bridge.reason': reason,
    });
  }
}

/** Several processors as one. */
function fanOut(processors: readonly SpanProcessor[]): SpanProcessor {
  return {
    onStart: (span, context) => {
      for (const p of processors) p.onStart(span, context);
    },
    onEnd: (span) => {
      for (const p of processors) p.onEnd(span);
    },
    forceFlush: async () => {
      await Promise.all(processors.map((p) => p.forceFlush()));
    },
    shutdown: async () => {
      await Promise.all(processors.map((p) => p.shutdown()));
    },
  };
}
