import type { AgentEvent } from '../events/agent-event.js';
import { nativeEventProblem } from '../events/native-event-check.js';
import { isDialectName } from '../events/dialect-name.js';
import type { DialectName } from '../events/dialect-name.js';

/**
 * An open run's state, kept in the broker so that its messages can be acknowledged before it
 * ends: its events so far, compacted (see `compactEvents`). A run that ended and whose export is
 * durable leaves a `finished` marker instead, so that its messages, delivered again to another
 * owner, are not made into a second run.
 */
export interface RunCheckpoint {
  readonly runId: string;
  readonly dialect: DialectName;
  readonly finished: boolean;
  readonly events: readonly AgentEvent[];
  /**
   * Metric writes the run had made when this was saved: whoever rebuilds it from these events
   * does not make them again (absent in checkpoints of earlier versions: 0).
   */
  readonly metricWrites: number;
}

const VERSION = 1;

export function encodeCheckpoint(checkpoint: RunCheckpoint): string {
  return JSON.stringify({ v: VERSION, ...checkpoint });
}

/** Reads a stored checkpoint; throws an `Error` naming the field at fault. */
export function decodeCheckpoint(text: string): RunCheckpoint {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`not JSON: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  if (typeof value !== 'object' || value === null) throw new Error('expected an object');
  const c = value as Record<string, unknown>;
  if (c['v'] !== VERSION) throw new Error(`v: expected ${VERSION}, got ${JSON.stringify(c['v'])}`);
  const runId = c['runId'];
  if (typeof runId !== 'string' || runId === '') throw new Error('runId: expected a string');
  const dialect = c['dialect'];
  if (!isDialectName(dialect)) throw new Error(`dialect: unknown ${JSON.stringify(dialect)}`);
  if (typeof c['finished'] !== 'boolean') throw new Error('finished: expected a boolean');
  const events = c['events'];
  if (!Array.isArray(events)) throw new Error('events: expected an array');
  events.forEach((event: unknown, i) => {
    const problem = nativeEventProblem(event);
    if (problem !== undefined) throw new Error(`events[${i}].${problem[0]}: ${problem[1]}`);
    if ((event as AgentEvent).runId !== runId)
      throw new Error(`events[${i}].runId: not the checkpoint's run`);
  });
  const metricWrites = c['metricWrites'] ?? 0;
  if (typeof metricWrites !== 'number' || !Number.isSafeInteger(metricWrites) || metricWrites < 0)
    throw new Error('metricWrites: expected a whole number ≥ 0');
  return {
    runId,
    dialect,
    finished: c['finished'],
    events: events as AgentEvent[],
    metricWrites,
  };
}
