import type { RunRecord } from '../run-state.js';

/**
 * Counts one metric write of an open run (one or more records made together), and says whether
 * to make it: a metric of a run is recorded exactly once in this process. A run let go while open
 * (its partition moved away) and rebuilt here from its redelivered events replays the same events
 * in the same order, so its first `replayedWrites` writes are the ones already made: false for them.
 */
export function isFirstWrite(run: RunRecord): boolean {
  run.metricWrites += 1;
  return run.metricWrites > run.replayedWrites;
}
