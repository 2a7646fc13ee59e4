import type { HrTime } from '@opentelemetry/api';
import type { AgentEvent } from '../events/agent-event.js';
import { compareHrTime } from '../events/hr-time.js';
import { eventFingerprint } from './event-fingerprint.js';

/**
 * What one run remembers to recognise an event it has already applied (a redelivery, a replayed
 * prefix), in bounded memory and without keeping anything per streamed delta:
 * - most events: a 53-bit fingerprint of their key, the latest `capacity` of them;
 * - text and tool-call deltas, which stream in time order: the time of the newest delta and the
 *   keys of the deltas at exactly that time. An older delta is a replay.
 */
export class RecentEvents {
  private readonly fingerprints = new Set<number>();
  private deltaTime: HrTime | undefined;
  private readonly deltaKeysAtTime: string[] = [];
  // The fingerprint computed by the last `has`, reused by `add` for the same event.
  private lastEvent: AgentEvent | undefined;
  private lastFingerprint = 0;

  constructor(private readonly capacity: number) {}

  /** Whether the event was applied before. */
  has(event: AgentEvent): boolean {
    if (event.type === 'TextDelta' || event.type === 'ToolCallDelta') {
      if (this.deltaTime === undefined) return false;
      const order = compareHrTime(event.time, this.deltaTime);
      return order < 0 || (order === 0 && this.deltaKeysAtTime.includes(deltaKey(event)));
    }
    return this.fingerprints.has(this.fingerprintOf(event));
  }

  /** Remembers an applied event. */
  add(event: AgentEvent): void {
    if (event.type === 'TextDelta' || event.type === 'ToolCallDelta') {
      if (this.deltaTime === undefined || compareHrTime(event.time, this.deltaTime) > 0) {
        this.deltaTime = event.time;
        this.deltaKeysAtTime.length = 0;
      }
      this.deltaKeysAtTime.push(deltaKey(event));
      return;
    }
    this.fingerprints.add(this.fingerprintOf(event));
    this.lastEvent = undefined;
    if (this.fingerprints.size > this.capacity)
      this.fingerprints.delete(this.fingerprints.values().next().value!);
  }

  private fingerprintOf(event: AgentEvent): number {
    if (event !== this.lastEvent) {
      this.lastEvent = event;
      this.lastFingerprint = eventFingerprint(event);
    }
    return this.lastFingerprint;
  }
}

function deltaKey(event: { readonly delta: string; readonly callId?: string }): string {
  return event.callId === undefined ? event.delta : `${event.callId}\0${event.delta}`;
}
