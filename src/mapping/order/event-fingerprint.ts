import type { AgentEvent } from '../../events/agent-event.js';

// A 53-bit fingerprint of what tells two events of one run apart: type, time to the nanosecond and
// the fields that tell same-time events apart, hashed as they are (no key string is built).
// cyrb53's mixing, fed with 32-bit words and char codes.
let h1 = 0;
let h2 = 0;

function word(n: number): void {
  h1 = Math.imul(h1 ^ n, 2654435761);
  h2 = Math.imul(h2 ^ n, 1597334677);
}

function int(n: number): void {
  if (Number.isSafeInteger(n)) {
    word(n | 0);
    word((n / 4294967296) | 0);
  } else text(String(n));
}

function text(s: string): void {
  for (let i = 0; i < s.length; i += 1) word(s.charCodeAt(i));
  word(0x10000 + s.length); // ends the field: no char code is this large
}

function optional(value: string | number | undefined): void {
  if (value === undefined) word(0x20000);
  else if (typeof value === 'number') int(value);
  else text(value);
}

/**
 * Each type as one word, beyond any char code or field end: a type's name is not hashed char by
 * char for every event (a storm of deltas sharing a timestamp fingerprints each of them).
 */
const TYPE_WORDS: Readonly<Record<AgentEvent['type'], number>> = {
  RunStarted: 0x30000,
  ContextBuilt: 0x30001,
  ModelStarted: 0x30002,
  TextDelta: 0x30003,
  ToolCallStarted: 0x30004,
  ToolCallDelta: 0x30005,
  ToolCallCompleted: 0x30006,
  ToolExecutionStarted: 0x30007,
  ToolExecutionFinished: 0x30008,
  AssistantMessageCommitted: 0x30009,
  ToolMessageCommitted: 0x3000a,
  UsageRecorded: 0x3000b,
  RunCompleted: 0x3000c,
  RunFailed: 0x3000d,
  RunCancelled: 0x3000e,
  DoomLoopDetected: 0x3000f,
  CompactionCircuitOpened: 0x30010,
  Annotation: 0x30011,
};

/** A type this build does not know (never the case for a checked event): its name's own hash. */
function typeWord(type: string): number {
  text(type);
  return 0x30100;
}

/** What knows its event's fingerprint: worked out where it is kept, or only when first asked for. */
export interface Printed {
  readonly fingerprint: number;
}

/** Equal for two events of one run exactly when they are the same event (up to a 2^-53 chance of a collision). */
export function eventFingerprint(event: AgentEvent): number {
  h1 = 0xdeadbeef;
  h2 = 0x41c6ce57;
  word(TYPE_WORDS[event.type] ?? typeWord(event.type));
  int(event.time[0]);
  int(event.time[1]);
  switch (event.type) {
    case 'ModelStarted':
      int(event.iteration);
      break;
    case 'TextDelta':
      text(event.delta);
      break;
    case 'ToolCallStarted':
    case 'ToolCallCompleted':
    case 'ToolExecutionStarted':
    case 'ToolExecutionFinished':
      text(event.callId);
      break;
    case 'ToolCallDelta':
      text(event.callId);
      text(event.delta);
      break;
    case 'AssistantMessageCommitted':
      optional(event.messageId);
      optional(event.iteration);
      break;
    case 'ToolMessageCommitted':
      optional(event.messageId);
      break;
    case 'UsageRecorded':
      optional(event.iteration);
      optional(event.usage.inputTokens);
      optional(event.usage.outputTokens);
      break;
    case 'Annotation':
      text(event.target);
      optional(event.callId);
      optional(event.event);
      text(JSON.stringify(event.attributes));
      break;
    case 'ContextBuilt':
      int(event.messageCount);
      break;
    case 'DoomLoopDetected':
      text(event.description);
      break;
    case 'CompactionCircuitOpened':
      int(event.consecutiveFailures);
      break;
    case 'RunFailed':
      text(event.error);
      break;
    case 'RunStarted':
    case 'RunCompleted':
    case 'RunCancelled':
      break;
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
