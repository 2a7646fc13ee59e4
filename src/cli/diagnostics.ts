import { diag, DiagLogLevel } from '@opentelemetry/api';
import type { DiagLogger } from '@opentelemetry/api';
import type { Writable } from 'node:stream';
import { PACKAGE_NAME } from '../version.js';

/** `OTEL_LOG_LEVEL` as the SDK's environment specification names its levels. */
const LEVELS: Record<string, DiagLogLevel> = {
  none: DiagLogLevel.NONE,
  error: DiagLogLevel.ERROR,
  warn: DiagLogLevel.WARN,
  info: DiagLogLevel.INFO,
  debug: DiagLogLevel.DEBUG,
  verbose: DiagLogLevel.VERBOSE,
  all: DiagLogLevel.ALL,
};

/**
 * Prints the bridge's own warnings and errors (limits hit, mapping failures) on stderr, one line
 * each, and the SDK's word that its span queue overflowed. The SDK's other diagnostics stay
 * silent (export trouble is reported by the export watcher) unless `OTEL_LOG_LEVEL` asks for info
 * or more, which prints everyone's at that level; `OTEL_LOG_LEVEL=error` or `none` quietens the
 * bridge's own too. `--quiet` keeps errors only.
 */
export function printBridgeDiagnostics(
  stderr: Writable,
  quiet: boolean,
  env: Readonly<Record<string, string | undefined>> = {},
): void {
  const asked = LEVELS[(env['OTEL_LOG_LEVEL'] ?? '').trim().toLowerCase()];
  const everyone = asked !== undefined && asked >= DiagLogLevel.INFO;
  const print =
    (level: string) =>
    (...args: unknown[]): void => {
      if (typeof args[0] === 'string' && /^Dropped \d+ spans because maxQueueSize/.test(args[0])) {
        stderr.write(
          `agent-otel-bridge: ${level}export queue full: ${args[0]} (OTEL_BSP_MAX_QUEUE_SIZE); counted in otel.sdk.processor.span.processed{error.type="queue_full"}\n`,
        );
        return;
      }
      const own = args[0] === PACKAGE_NAME;
      if (!own && !everyone) return;
      const text = args
        .slice(own ? 1 : 0)
        .map((a) => (a instanceof Error ? a.message : String(a)))
        .join(': ');
      stderr.write(`agent-otel-bridge: ${level}${text}\n`);
    };
  const logger: DiagLogger = {
    error: print('error: '),
    warn: print(''),
    info: print('info: '),
    debug: print('debug: '),
    verbose: print('verbose: '),
  };
  const level = quiet
    ? Math.min(DiagLogLevel.ERROR, asked ?? DiagLogLevel.ERROR)
    : (asked ?? DiagLogLevel.WARN);
  diag.setLogger(logger, { logLevel: level });
}
