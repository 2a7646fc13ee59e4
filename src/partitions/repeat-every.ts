import { pause } from '../sources/broker-source.js';

/**
 * Runs `work` every `everyMillis` until `signal` aborts, on a schedule of its own: a round that
 * starts late is timed from when it was due (`late`, in seconds), a round that fails is told to
 * `failed` and the next one runs on schedule, and rounds never overlap or pile up.
 */
export async function repeatEvery(
  work: () => Promise<void>,
  options: {
    readonly everyMillis: number;
    readonly signal: AbortSignal;
    readonly failed: (error: unknown) => void;
    readonly late?: (seconds: number) => void;
  },
): Promise<void> {
  const { everyMillis, signal } = options;
  let due = Date.now();
  while (!signal.aborted) {
    options.late?.(Math.max(0, Date.now() - due) / 1000);
    await work().catch(options.failed);
    due = Math.max(due + everyMillis, Date.now());
    await pause(due - Date.now(), signal);
  }
}
