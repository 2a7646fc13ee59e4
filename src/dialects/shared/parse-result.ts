import type { HrTime } from '../../events/hr-time.js';
import type { AgentEvent } from '../../events/agent-event.js';
import type { RuntimeDialect } from '../../events/dialect-name.js';

/** Why a line was not turned into events. Low-cardinality; used as a metric attribute. */
export type RejectReason =
  | 'invalid_json'
  | 'not_an_object'
  | 'schema'
  | 'undetected_dialect'
  | 'line_too_long'
  | 'invalid_utf8'
  | 'json_too_deep';

/** The outcome of decoding one input (a line, a frame) of a dialect: zero or more canonical events. */
export type ParseResult =
  | {
      readonly ok: true;
      readonly events: readonly AgentEvent[];
      /** The runtime's own name for the input, e.g. `RunStarted`, `messageEnd`, `tool_call_end`. */
      readonly sourceType: string;
    }
  | {
      readonly ok: false;
      readonly outcome: 'ignored';
      readonly reason: 'unknown_variant';
      readonly message: string;
      readonly sourceType?: string;
    }
  | {
      readonly ok: false;
      readonly outcome: 'rejected';
      readonly reason: RejectReason;
      /** One line, human-readable, with the field path when there is one. */
      readonly message: string;
      /** Dotted path of the offending field, e.g. `RunStarted.timestamp`. */
      readonly path?: string;
      readonly sourceType?: string;
    };

/** How sure a dialect is that a value is one of its inputs. */
export type Verdict = 'yes' | 'maybe' | 'no';

/** What a stream-scoped decoder knows of the stream it reads. */
export interface StreamContext {
  /** Names the stream (a file, a request, a conversation); runs without ids are scoped to it. */
  readonly scope: string;
  /** Arrival time of the current input, strictly increasing within the stream. */
  arrival(): HrTime;
  /** Deepest JSON nesting accepted in a line (and in JSON-string tool arguments). Default: 64. */
  readonly maxJsonDepth?: number;
}

/** Decodes the inputs of one stream; may keep state (run boundaries, tool names). */
export interface StreamDecoder {
  decode(value: unknown): ParseResult;
}

/** A runtime's wire format. */
export interface Dialect {
  readonly name: RuntimeDialect;
  /** Whether a value looks like this dialect (auto-detection). */
  classify(value: unknown): Verdict;
  createDecoder(stream: StreamContext): StreamDecoder;
  /**
   * The run a raw line names, found without decoding it, for dialects whose every input names
   * its run (routing by run). Absent where runs are named by their stream.
   */
  runIdOf?(text: string): string | undefined;
  /**
   * The same, read where that is certain from the line's characters as they lie (the line begins
   * as the runtime writes it, in ASCII): of `text.slice(from, to)`, where `text` holds more lines
   * or is a line's bytes as Latin-1 (not decoded). Undefined otherwise: ask `runIdOf`.
   */
  plainRunIdIn?(text: string, from: number, to: number): string | undefined;
}

/** Helpers for dialect files. */
export const accepted = (sourceType: string, ...events: AgentEvent[]): ParseResult => ({
  ok: true,
  events,
  sourceType,
});

export function rejectedSchema(path: string, message: string, sourceType?: string): ParseResult {
  return {
    ok: false,
    outcome: 'rejected',
    reason: 'schema',
    path,
    message: `${path}: ${message}`,
    ...(sourceType === undefined ? {} : { sourceType }),
  };
}

export function ignoredVariant(dialect: string, sourceType: string): ParseResult {
  return {
    ok: false,
    outcome: 'ignored',
    reason: 'unknown_variant',
    message: `unknown ${dialect} event ${sourceType}`,
    sourceType,
  };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
