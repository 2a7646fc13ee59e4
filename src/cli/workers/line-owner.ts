import { partitionOf } from '../../partitions/partition-of.js';

/** behest names its run first in every payload: `{"Variant":{"run_id":"…",…}}`. */
const RUN_ID = /"run_id"\s*:\s*"((?:[^"\\]|\\.){1,200})"/;

/**
 * The worker a line belongs to: its behest run's (hashed as partitions are), else its input's, so
 * that runtimes without run ids keep a whole input on one worker (their runs are named within it).
 */
export function lineOwner(text: string | undefined, inputName: string, workers: number): number {
  const runId = text === undefined ? undefined : RUN_ID.exec(text)?.[1];
  return partitionOf(runId ?? inputName, workers);
}
