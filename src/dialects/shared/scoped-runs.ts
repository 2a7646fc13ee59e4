import { hash } from 'node:crypto';
import type { HrTime } from '../../events/hr-time.js';
import type { AgentEvent, Annotation, AnnotationValue } from '../../events/agent-event.js';
import { formatHrTime } from '../../events/hr-time.js';

/**
 * Run boundaries and identity for runtimes whose events carry no run id. A run opens at its
 * start event (or lazily at the first event after the previous run ended) and is named after what
 * the runtime itself emitted, never after the stream, a counter or the process: a UUID-shaped
 * digest of the dialect, the conversation (session, thread) id, the run's first event time when
 * the runtime stamps its events, and the run's first input. Runtimes without timestamps chain the
 * digest to the previous run of the stream, so identical runs in one stream stay apart. The same
 * log fed again, from any path or process, gives the same ids; different runs never share one
 * (unless they are byte-identical, unstamped and first in their streams: then nothing tells them
 * apart). Iterations are numbered when the runtime does not.
 */
export class ScopedRuns {
  private runId: string | undefined;
  private previous = '';
  private input: unknown;
  private stamped: HrTime | undefined;
  /** Highest iteration started in the current run (0: none). */
  iteration = 0;
  /** Whether the current iteration's model call may still receive output. */
  iterationOpen = false;

  constructor(
    private readonly dialect: string,
    private readonly conversation?: string,
  ) {}

  /**
   * The input being decoded, and its own timestamp when the runtime stamped it: a run that
   * starts with it is named after them.
   */
  see(input: unknown, stamped?: HrTime): void {
    this.input = input;
    this.stamped = stamped;
  }

  /** Begins a new run (the previous one, if still open, is left to the tracker's lifecycle). */
  start(conversation?: string): string {
    const digest = hash(
      'sha256',
      [
        this.dialect,
        conversation ?? this.conversation ?? '',
        this.stamped === undefined ? '' : formatHrTime(this.stamped),
        this.stamped === undefined ? this.previous : '',
        JSON.stringify(this.input) ?? '',
      ].join('\0'),
      'hex',
    );
    this.runId = toUuid(digest);
    this.previous = this.runId;
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

/**
 * A sub-agent's run id: a version-8 UUID digest of its parent run's id and the runtime's id for
 * the sub-agent, so the same log names it alike in every process.
 */
export function childRunId(parentRunId: string, subagentId: string): string {
  return toUuid(hash('sha256', `${parentRunId}\0subagent\0${subagentId}`, 'hex'));
}

/** 32 hex digits as an RFC 9562 version-8 (custom) UUID: the trace id is its 128 bits. */
export function toUuid(hex: string): string {
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
