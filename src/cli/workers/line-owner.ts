import { runIdOfLine } from '../../dialects/registry.js';
import type { InputDialect } from '../../events/dialect-name.js';
import { partitionOf } from '../../partitions/partition-of.js';

/**
 * The worker a line belongs to: its run's (hashed as partitions are) where its dialect names runs
 * in every line, else its input's, so that runtimes without run ids keep a whole input on one
 * worker (their runs are named within it).
 */
export function lineOwner(
  text: string | undefined,
  dialect: InputDialect,
  inputName: string,
  workers: number,
): number {
  const runId = text === undefined || dialect === 'auto' ? undefined : runIdOfLine(dialect, text);
  return partitionOf(runId ?? inputName, workers);
}
