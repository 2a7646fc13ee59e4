import { PUBLISHED_DIALECT, runIdOfLine } from '../dialects/registry.js';

// The one partition model, from cores to machines: a run belongs to partition
// `fnv1a32(run id) mod P`, wherever it is computed (router, instance, test), so every event of a
// run lands in the same partition and one owner sees the whole run.

/** FNV-1a over the UTF-16 code units of `text`: stable across processes and versions. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** The partition (0…partitions−1) of a run. */
export function partitionOf(runId: string, partitions: number): number {
  return fnv1a32(runId) % partitions;
}

/**
 * The run id of a published event, read the way its dialect reads it (the runtimes that publish
 * to a broker name their runs). Undefined for anything else, which goes to partition 0.
 */
export function runIdOf(text: string): string | undefined {
  return runIdOfLine(PUBLISHED_DIALECT, text);
}

/** The partition a published event goes to. */
export function partitionOfEvent(text: string, partitions: number): number {
  const runId = runIdOf(text);
  return runId === undefined ? 0 : partitionOf(runId, partitions);
}
