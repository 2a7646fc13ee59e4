/** Least time between two rounds of checkpoints forced by a pause (--max-ack-pending reached). */
const RELIEVE_EVERY_MILLIS = 250;
/** Pulling pauses while the span export queue is fuller than this (a fraction of its size). */
const MAX_SPAN_QUEUE_LOAD = 0.5;

export interface PullGateParts {
  /** Messages held unacknowledged, and how many may be (--max-ack-pending). */
  pending(): number;
  readonly maxPending: number;
  /** How full the span export queue is: 1 when full, past 1 while spans wait for room in it. */
  spanQueueLoad(): number;
  /** Exports spans and metrics now (at most so often). */
  exportNow(): void;
  /** Saves open runs' checkpoints now, which acknowledges their messages; undefined: none kept. */
  readonly relieve: (() => void) | undefined;
  say(line: string): void;
}

/**
 * Whether a broker source may pull now. It pauses while as many messages are held as
 * --max-ack-pending allows, or while the span export queue is over half full: spans past a full
 * queue wait in the bridge, and runs read meanwhile would only add to them.
 * Each pause is said once.
 */
export function pullGate(parts: PullGateParts): { paused(): boolean; canPull(): boolean } {
  const held = () => parts.pending() >= parts.maxPending;
  const queueFull = () => parts.spanQueueLoad() > MAX_SPAN_QUEUE_LOAD;
  const paused = () => held() || queueFull();
  let heldSaid = false;
  let queueSaid = false;
  let relievedAt = -Infinity;
  return {
    paused,
    canPull() {
      // Acknowledgements wait for an export of spans and of metrics; with half the allowed
      // messages held, export now instead of at the next interval, so throughput is bounded by
      // the collector's round trip, not by the metric export interval.
      if (parts.pending() >= parts.maxPending / 2) parts.exportNow();
      if (!paused()) return true;
      if (!held()) {
        if (!queueSaid) {
          queueSaid = true;
          parts.say(
            'the span export queue is over half full (OTEL_BSP_MAX_QUEUE_SIZE): pulling paused until it drains (said once)',
          );
        }
        return false;
      }
      // Open runs' messages are acknowledged once checkpointed: a pause is relieved by saving
      // them now (at most every RELIEVE_EVERY_MILLIS), not only when one run holds enough.
      if (performance.now() - relievedAt >= RELIEVE_EVERY_MILLIS) {
        relievedAt = performance.now();
        parts.relieve?.();
      }
      if (!heldSaid) {
        heldSaid = true;
        parts.say(
          `holding ${parts.pending()} unacknowledged messages (--max-ack-pending ${parts.maxPending}): pulling paused until runs finish (said once)${parts.relieve === undefined ? "; no checkpoints are kept, so only a run's end frees its messages: a run with more events than --max-ack-pending (or runs open at once with more together) never ends here" : '; open runs are checkpointed meanwhile, which acknowledges their messages'}. A run's messages are held until its spans and metrics are exported (or it is checkpointed), its grace period included: throughput is at most --max-ack-pending / (reorder window + grace + export); raise it, or lower AGENT_OTEL_BRIDGE_LATE_GRACE_MS`,
        );
      }
      return false;
    },
  };
}
