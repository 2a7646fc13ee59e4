import type { HrTime } from '@opentelemetry/api';
import type { AgentEvent, Annotation, AnnotationValue } from '../events/agent-event.js';
import { formatHrTime } from '../events/hr-time.js';

/**
 * Run boundaries for runtimes whose events carry no run id: runs are numbered within their
 * stream (`<scope>#1`, `<scope>#2`, …), a run opens at its start event (or lazily at the first
 * event after the previous run ended) and iterations are numbered when the runtime does not.
 */
export class ScopedRuns {
  private count = 0;
  private runId: string | undefined;
  /** Highest iteration started in the current run (0: none). */
  iteration = 0;
  /** Whether the current iteration's model call may still receive output. */
  iterationOpen = false;

  /**
   * @param stampIds name runs by their first event's time (`<scope>@<RFC 3339>`) instead of their
   *   number, for live feeds where numbering would restart with the bridge.
   */
  constructor(
    private readonly scope: string,
    private readonly stampIds = false,
  ) {}

  /** Begins a new run (the previous one, if still open, is left to the tracker's lifecycle). */
  start(time?: HrTime): string {
    this.count += 1;
    this.runId =
      this.stampIds && time !== undefined
        ? `${this.scope}@${formatHrTime(time)}`
        : `${this.scope}#${this.count}`;
    this.iteration = 0;
    this.iterationOpen = false;
    return this.runId;
  }

  /** The current run, opened lazily. */
  current(): string {
    return this.runId ?? this.start();
  }

  get open(): boolean {
    return this.runId !== undefined;
  }

  end(): void {
    this.runId = undefined;
  }

  /**
   * A ModelStarted for `iteration` (default: the next one) unless that iteration already
   * started; marks the iteration open.
   */
  startIteration(
    time: HrTime,
    iteration?: number,
    provider?: string,
    model?: string,
  ): AgentEvent[] {
    const runId = this.current();
    const n = iteration ?? this.iteration + 1;
    if (n <= this.iteration) {
      this.iterationOpen = true;
      return [];
    }
    this.iteration = n;
    this.iterationOpen = true;
    return [{ type: 'ModelStarted', runId, time, iteration: n, provider, model }];
  }

  /** A ModelStarted for the next iteration when none is open (output arriving mid-run). */
  ensureIteration(time: HrTime): AgentEvent[] {
    return this.iterationOpen ? [] : this.startIteration(time);
  }

  /** Text of the current model call, opening an iteration when none is open. */
  textDelta(time: HrTime, delta: string): AgentEvent[] {
    return [
      ...this.ensureIteration(time),
      { type: 'TextDelta', runId: this.current(), time, delta },
    ];
  }

  /** A runtime-specific annotation of the current run (see `Annotation`). */
  annotation(
    time: HrTime,
    target: Annotation['target'],
    event: string | undefined,
    attributes: Record<string, AnnotationValue>,
    callId?: string,
  ): AgentEvent {
    return { type: 'Annotation', runId: this.current(), time, target, event, callId, attributes };
  }
}
