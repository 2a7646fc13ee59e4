import type { RunCheckpoint } from './run-checkpoint.js';

/**
 * Where open runs' checkpoints live: in the broker the events come from (JetStream KV, Redis
 * keys), grouped by scope (the partition, or `all` without partitions), each expiring after a
 * time to live renewed by every save.
 */
export interface CheckpointStore {
  save(scope: string, checkpoint: RunCheckpoint): Promise<void>;
  /** The scope's checkpoints, and what could not be read (key and why). */
  load(scope: string): Promise<LoadedCheckpoints>;
  close(): Promise<void>;
}

export interface LoadedCheckpoints {
  readonly checkpoints: readonly RunCheckpoint[];
  readonly unreadable: readonly { readonly key: string; readonly problem: string }[];
}

/** A run id as a key part: base64url, which every store's key alphabet allows. */
export const keyOfRun = (runId: string) => Buffer.from(runId, 'utf8').toString('base64url');
