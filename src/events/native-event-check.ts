import type { AgentEvent } from './agent-event.js';

/** Every `AgentEvent` type, as the union in agent-event.ts lists them. */
const TYPES: ReadonlySet<string> = new Set<AgentEvent['type']>([
  'RunStarted',
  'ContextBuilt',
  'ModelStarted',
  'TextDelta',
  'ToolCallStarted',
  'ToolCallDelta',
  'ToolCallCompleted',
  'ToolExecutionStarted',
  'ToolExecutionFinished',
  'AssistantMessageCommitted',
  'ToolMessageCommitted',
  'UsageRecorded',
  'RunCompleted',
  'RunFailed',
  'RunCancelled',
  'DoomLoopDetected',
  'CompactionCircuitOpened',
  'Annotation',
]);

/**
 * What is wrong with an event handed to `sink.handle()` by a TypeScript runtime (its type system
 * may have been bypassed): undefined when its envelope is sound, else `[field path, message]`.
 */
export function nativeEventProblem(event: unknown): readonly [string, string] | undefined {
  if (typeof event !== 'object' || event === null || Array.isArray(event))
    return ['', `expected an event object, got ${event === null ? 'null' : typeof event}`];
  const e = event as Record<string, unknown>;
  if (typeof e['type'] !== 'string' || !TYPES.has(e['type']))
    return ['type', `unknown event type ${JSON.stringify(e['type'])?.slice(0, 60) ?? 'undefined'}`];
  if (typeof e['runId'] !== 'string' || e['runId'] === '')
    return ['runId', 'expected a non-empty string'];
  const time = e['time'];
  const sound =
    Array.isArray(time) &&
    time.length === 2 &&
    Number.isSafeInteger(time[0]) &&
    (time[0] as number) >= 0 &&
    Number.isInteger(time[1]) &&
    (time[1] as number) >= 0 &&
    (time[1] as number) < 1e9;
  if (!sound) return ['time', 'expected an HrTime: [seconds since 1970, nanoseconds]'];
  return undefined;
}
