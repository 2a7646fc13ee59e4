import { diag, DiagLogLevel } from '@opentelemetry/api';
import type { DiagLogger } from '@opentelemetry/api';
import type { Writable } from 'node:stream';
import { PACKAGE_NAME } from '../version.js';

/**
 * Prints the bridge's own warnings and errors (limits hit, mapping failures) on stderr, one line
 * each, and the SDK's word that its span queue overflowed. The SDK's other diagnostics stay
 * silent: export trouble is reported by the export watcher.
 */
export function printBridgeDiagnostics(stderr: Writable, quiet: boolean): void {
  const print =
    (level: string) =>
    (...args: unknown[]): void => {
      if (typeof args[0] === 'string' && /^Dropped \d+ spans because maxQueueSize/.test(args[0])) {
        stderr.write(
          `agent-otel-bridge: ${level}export queue full: ${args[0]} (OTEL_BSP_MAX_QUEUE_SIZE); counted in otel.sdk.processor.span.processed{error.type="queue_full"}\n`,
        );
        return;
      }
      if (args[0] !== PACKAGE_NAME) return;
      const text = args
        .slice(1)
        .map((a) => (a instanceof Error ? a.message : String(a)))
        .join(': ');
      stderr.write(`agent-otel-bridge: ${level}${text}\n`);
    };
  const logger: DiagLogger = {
    error: print('error: '),
    warn: print(''),
    info: () => undefined,
    debug: () => undefined,
    verbose: () => undefined,
  };
  diag.setLogger(logger, { logLevel: quiet ? DiagLogLevel.ERROR : DiagLogLevel.WARN });
}
