import type { Meter } from '@opentelemetry/api';

/** Checkpoints saved, runs restored from one, marked finished, saves that failed or were fenced. */
export interface CheckpointCounts {
  saved: number;
  restored: number;
  finished: number;
  failed: number;
  fenced: number;
}

/** Reports the counts as `agent_bridge.checkpoints` at each collection (no meter: not at all). */
export function observeCheckpointCounts(meter: Meter | undefined, counts: CheckpointCounts): void {
  meter
    ?.createObservableCounter('agent_bridge.checkpoints', {
      description: "Open runs' checkpoints saved, restored, marked finished, failed",
      unit: '{checkpoint}',
    })
    .addCallback((result) => {
      for (const outcome of Object.keys(counts) as (keyof CheckpointCounts)[])
        result.observe(counts[outcome], { 'agent_bridge.checkpoint.outcome': outcome });
    });
}
