import { EXIT_UNDELIVERED } from './delivery.js';

/**
 * The grace of a long-running mode's shutdown: once asked to stop, it has `graceMillis` to flush;
 * past that it says so and exits 3 (`left`: what it leaves behind), rather than outlasting the
 * supervisor's patience (Kubernetes: 30 s, systemd: 90 s). Returns the disarm.
 */
export function armGrace(
  graceMillis: number,
  write: (line: string) => void,
  left: string,
): () => void {
  const timer = setTimeout(() => {
    write(
      `agent-otel-bridge: shutdown took longer than --grace-ms ${graceMillis}; exiting with ${left}\n`,
    );
    process.exit(EXIT_UNDELIVERED);
  }, graceMillis);
  timer.unref();
  return () => clearTimeout(timer);
}
