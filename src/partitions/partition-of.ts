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
 * The run id of a published event: behest's `{"Variant":{"run_id":…}}` (the runtimes that publish
 * to a broker name their runs). Undefined for anything else, which goes to partition 0.
 */
export function runIdOf(text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1) return undefined;
  const payload = (value as Record<string, unknown>)[keys[0]!];
  if (typeof payload !== 'object' || payload === null) return undefined;
  const runId = (payload as Record<string, unknown>)['run_id'];
  return typeof runId === 'string' && runId !== '' ? runId : undefined;
}

/** The partition a published event goes to. */
export function partitionOfEvent(text: string, partitions: number): number {
  const runId = runIdOf(text);
  return runId === undefined ? 0 : partitionOf(runId, partitions);
}
