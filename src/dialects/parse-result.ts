import type { AgentEvent } from '../events/agent-event.js';

/** Names of the dialects the bridge reads. `native` is the library's own typed events. */
export type DialectName = 'behest' | 'native';

/** Why a line was not turned into an event. Low-cardinality; used as a metric attribute. */
export type RejectReason = 'invalid_json' | 'not_an_object' | 'schema' | 'undetected_dialect';

/** The outcome of parsing one line of a dialect. */
export type ParseResult =
  | { readonly ok: true; readonly event: AgentEvent }
  | {
      readonly ok: false;
      readonly outcome: 'ignored';
      readonly reason: 'unknown_variant';
      readonly message: string;
    }
  | {
      readonly ok: false;
      readonly outcome: 'rejected';
      readonly reason: RejectReason;
      /** One line, human-readable, with the field path when there is one. */
      readonly message: string;
      /** Dotted path of the offending field, e.g. `RunStarted.timestamp`. */
      readonly path?: string;
    };

/** A dialect turns one parsed JSON value into a canonical event. */
export interface Dialect {
  readonly name: DialectName;
  /** Whether the value looks like this dialect at all (used by auto-detection). */
  matches(value: unknown): boolean;
  parse(value: unknown): ParseResult;
}
