// Identifiers and names that the runtime sends (session, call and message ids, provider, model and
// tool names) become span attributes and metric labels as they are. They are the runtime's text,
// so they are held to what free text is held to: secrets masked, length bounded. A cut identifier
// ends with a digest of the whole, so two long ids that share a prefix stay apart, and the same id
// always maps to the same text (tool starts and finishes still match).
import { createHash } from 'node:crypto';
import type { AgentEvent } from './agent-event.js';

/** Longest identifier exported as it is; a longer one is cut and given a digest of the whole. */
export const MAX_IDENTIFIER_LENGTH = 256;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Distinct identifiers remembered with their clean form (the cache starts over when full). */
const CACHE_SIZE = 4096;

const ID_FIELDS = ['sessionId', 'provider', 'model', 'callId', 'toolName', 'messageId'] as const;

/**
 * An event with each identifier field scrubbed and bounded; the same object when nothing changed.
 * `scrub` masks secrets; `onCut` hears of each identifier that was cut.
 */
export function createIdentifierGuard(
  scrub: (text: string) => string,
  onCut: () => void,
): (event: AgentEvent) => AgentEvent {
  const clean = new Map<string, string>();
  const cleanOf = (raw: string): string => {
    // Message, session and run ids are mostly UUIDs, which no rule masks: no scan for them.
    if (raw.length === 36 && UUID.test(raw)) return raw;
    const known = clean.get(raw);
    if (known !== undefined) return known;
    let text = scrub(raw);
    if (text.length > MAX_IDENTIFIER_LENGTH) {
      onCut();
      const digest = createHash('sha256').update(raw).digest('hex').slice(0, 16);
      text = `${text.slice(0, MAX_IDENTIFIER_LENGTH - 18)}…#${digest}`;
    }
    if (clean.size >= CACHE_SIZE) clean.clear();
    clean.set(raw, text);
    return text;
  };
  return (event) => {
    let changed: Record<string, unknown> | undefined;
    const fields = event as unknown as Record<string, unknown>;
    for (const field of ID_FIELDS) {
      const raw = fields[field];
      if (typeof raw !== 'string') continue;
      const text = cleanOf(raw);
      if (text === raw) continue;
      changed ??= { ...fields };
      changed[field] = text;
    }
    return changed === undefined ? event : (changed as unknown as AgentEvent);
  };
}
