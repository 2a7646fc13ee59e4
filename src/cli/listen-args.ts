// The options of the commands that listen: the port, and TLS.
import { readFileSync } from 'node:fs';
import { UsageError } from './usage-error.js';

/** `--port`: 0–65535 (0: any free port), or the command's default. */
export function toPort(raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be 0–65535, got ${raw}`);
  return port;
}

/** `--tls-cert` and `--tls-key`: both or neither, each read whole. */
export function readTls(
  certFile: string | undefined,
  keyFile: string | undefined,
): { cert: string; key: string } | undefined {
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined)
    throw new UsageError('--tls-cert and --tls-key go together');
  try {
    return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
  } catch (error) {
    throw new UsageError(
      `cannot read the TLS files: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
