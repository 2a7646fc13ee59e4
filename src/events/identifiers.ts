// Identifiers and names that the runtime sends (session, call and message ids, provider, model and
// tool names) become span names, span attributes and metric labels. They are the runtime's text,
// so they are held to a shape: a name is letters, digits and `._:/@+-` (at most 128), an id is
// printable ASCII without spaces. A name or id of another shape, or one in which a secret was
// found, becomes a stable digest of itself (`#` and 16 hex digits, counted), so a span name or a
// metric label never carries a sentence. A long id is cut and ends with a digest of the whole, so
// two long ids that share a prefix stay apart; the same id always maps to the same text (tool
// starts and finishes still match).
import { createHash } from 'node:crypto';
import type { AgentEvent, AgentEventType } from './agent-event.js';

/** Longest identifier exported as it is; a longer one is cut and given a digest of the whole. */
export const MAX_IDENTIFIER_LENGTH = 256;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Distinct names, and ids, remembered with their clean form (each cache starts over when full). */
const CACHE_SIZE = 4096;

const NAME_FIELDS = new Set(['provider', 'model', 'toolName', 'agentName']);
/** The fields that carry a name or id of the runtime's, on whichever event types have them. */
export const ID_FIELDS = [
  'sessionId',
  'provider',
  'model',
  'callId',
  'toolName',
  'messageId',
  'agentName',
  'parentToolCallId',
] as const;

type IdField = (typeof ID_FIELDS)[number];
type EventOf<T extends AgentEventType> = Extract<AgentEvent, { type: T }>;

/**
 * Each event type's identifier fields: a record per type, so that the compiler refuses a field
 * left out as well as one the type does not have. The mapping reads an event's fields by its
 * type, so a field another type has is never exported from this one, and is not looked at.
 */
type FieldsOf<T extends AgentEventType> = {
  readonly [F in Extract<keyof EventOf<T>, IdField>]-?: true;
} & { readonly [F in Exclude<IdField, keyof EventOf<T>>]?: never };
const ID_FIELDS_OF: { readonly [T in AgentEventType]: FieldsOf<T> } = {
  RunStarted: {
    sessionId: true,
    provider: true,
    model: true,
    agentName: true,
    parentToolCallId: true,
  },
  ContextBuilt: {},
  ModelStarted: { provider: true, model: true },
  TextDelta: {},
  ToolCallStarted: { callId: true, toolName: true },
  ToolCallDelta: { callId: true },
  ToolCallCompleted: { callId: true, toolName: true },
  ToolExecutionStarted: { callId: true, toolName: true },
  ToolExecutionFinished: { callId: true, toolName: true },
  AssistantMessageCommitted: { messageId: true, provider: true, model: true },
  ToolMessageCommitted: { messageId: true },
  UsageRecorded: {},
  RunCompleted: {},
  RunFailed: {},
  RunCancelled: {},
  DoomLoopDetected: {},
  CompactionCircuitOpened: {},
  Annotation: { callId: true },
};
const FIELDS_BY_TYPE: ReadonlyMap<string, readonly IdField[]> = new Map(
  Object.entries(ID_FIELDS_OF).map(([type, fields]) => [type, Object.keys(fields) as IdField[]]),
);

/** A provider, model or tool name as it may be exported. */
const NAME_SHAPE = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$/;
/** An identifier as it may be exported (length is bounded apart). */
const ID_SHAPE = /^[\x21-\x7e]+$/;

/** A stable stand-in for a name or id that may not be exported as it is. */
export function identifierDigest(raw: string): string {
  return `#${createHash('sha256').update(raw).digest('hex').slice(0, 16)}`;
}

/** Masks secrets in a name or id (the scrubber's layers for names). */
export interface IdentifierScrubbers {
  readonly name: (text: string) => string;
}

/**
 * An event with each identifier field held to its shape, scrubbed and bounded; the same object
 * when nothing changed. `onCut` hears of each identifier that was cut, `onDigest` of each that was
 * replaced by its digest.
 */
export function createIdentifierGuard(
  scrub: IdentifierScrubbers,
  onCut: () => void,
  onDigest: () => void = () => undefined,
): (event: AgentEvent) => AgentEvent {
  // Names and ids are held to different shapes, so each kind has its own map (a key made of both
  // would be a new string to hash on every lookup).
  const cleanNames = new Map<string, string>();
  const cleanIds = new Map<string, string>();
  const cleanOf = (raw: string, isName: boolean): string => {
    // Message, session and run ids are mostly UUIDs, which no rule masks: no scan for them.
    if (raw.length === 36 && UUID.test(raw)) return raw;
    const clean = isName ? cleanNames : cleanIds;
    const known = clean.get(raw);
    if (known !== undefined) return known;
    let text = raw;
    // What a cut id keeps is all that needs scanning.
    const probe = raw.slice(0, MAX_IDENTIFIER_LENGTH);
    const masked = scrub.name(probe);
    if (!(isName ? NAME_SHAPE : ID_SHAPE).test(raw) || masked !== probe) {
      onDigest();
      text = identifierDigest(raw);
    } else if (text.length > MAX_IDENTIFIER_LENGTH) {
      onCut();
      text = `${text.slice(0, MAX_IDENTIFIER_LENGTH - 18)}…${identifierDigest(raw)}`;
    }
    if (clean.size >= CACHE_SIZE) clean.clear();
    clean.set(raw, text);
    return text;
  };
  return (event) => {
    let changed: Record<string, unknown> | undefined;
    const fields = event as unknown as Record<string, unknown>;
    for (const field of FIELDS_BY_TYPE.get(event.type) ?? ID_FIELDS) {
      const raw = fields[field];
      if (typeof raw !== 'string') continue;
      const text = cleanOf(raw, NAME_FIELDS.has(field));
      if (text === raw) continue;
      changed ??= { ...fields };
      changed[field] = text;
    }
    return changed === undefined ? event : (changed as unknown as AgentEvent);
  };
}
