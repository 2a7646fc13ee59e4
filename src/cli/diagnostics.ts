import { diag, DiagLogLevel } from '@opentelemetry/api';
import type { DiagLogger } from '@opentelemetry/api';
import type { Writable } from 'node:stream';
import { PACKAGE_NAME } from '../version.js';

/**
 * Prints the bridge's own warnings and errors (limits hit, mapping failures) on stderr, one line
 * each. The SDK's diagnostics stay silent: export trouble is reported by the export watcher.
 */
export function printBridgeDiagnostics(stderr: Writable, quiet: boolean): void {
  const print =
    (level: string) =>
    (...args: unknown[]): void => {
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
