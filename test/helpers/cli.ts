import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The live modes hold events for reordering and keep ended runs open for late arrivals (1 s and
 * 5 s by default). Tests that are not about that use short windows, so that they wait less; a
 * test's own `env` overrides them.
 */
export const SHORT_WINDOWS = {
  AGENT_OTEL_BRIDGE_REORDER_WINDOW_MS: '100',
  AGENT_OTEL_BRIDGE_LATE_GRACE_MS: '300',
} as const;

/** A clean OTEL environment with short windows, plus `env`. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith('OTEL_') && !k.startsWith('AGENT_OTEL_BRIDGE_'),
    ),
  );
  return { ...base, ...SHORT_WINDOWS, ...env };
}

/**
 * Runs the built CLI as a child process with a clean OTEL environment plus `env`; `stdin` is
 * written to a pipe, or `{ file }` is opened as its stdin (a shell's `< file`).
 */
export function runCli(
  args: readonly string[],
  env: Record<string, string> = {},
  stdin?: string | Buffer | { readonly file: string },
): Promise<CliResult> {
  if (!existsSync(CLI))
    throw new Error(`${CLI} is missing: run 'npm run build' first (npm test does)`);
  return new Promise((resolve, reject) => {
    const redirected =
      typeof stdin === 'object' && 'file' in stdin ? openSync(stdin.file, 'r') : undefined;
    const child = spawn(process.execPath, [CLI, ...args], {
      env: childEnv(env),
      stdio: [redirected ?? 'pipe', 'pipe', 'pipe'],
    });
    if (redirected !== undefined) closeSync(redirected);
    else child.stdin!.end(stdin as string | Buffer | undefined);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface RunningCli {
  /** Resolves once stderr has matched `pattern` (rejects after `timeoutMillis`). */
  waitForStderr(pattern: RegExp, timeoutMillis?: number): Promise<void>;
  /** Sends a signal and resolves with the exit code and output. */
  stop(signal?: NodeJS.Signals): Promise<CliResult>;
  stderr(): string;
  stdout(): string;
  /** The child's process id. */
  readonly pid: number | undefined;
  /** Resolves with the exit code and output once the process has ended. */
  readonly exited: Promise<CliResult>;
}

/** Starts the built CLI as a long-running child process. */
export function startCli(args: readonly string[], env: Record<string, string> = {}): RunningCli {
  if (!existsSync(CLI))
    throw new Error(`${CLI} is missing: run 'npm run build' first (npm test does)`);
  const child = spawn(process.execPath, [CLI, ...args], {
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
    for (const listener of listeners) listener();
  });
  const exited = new Promise<CliResult>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return {
    stderr: () => stderr,
    stdout: () => stdout,
    pid: child.pid,
    exited,
    waitForStderr(pattern, timeoutMillis = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(stderr)) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`stderr never matched ${pattern}; it was:\n${stderr}`));
        }, timeoutMillis);
        listeners.add(check);
        check();
      });
    },
    stop(signal = 'SIGTERM') {
      child.kill(signal);
      return exited;
    },
  };
}

/** A CLI's `--json` summary without its timing, which differs from run to run. */
export function summaryWithoutTiming(stdout: string): unknown {
  const { seconds: _, ...rest } = JSON.parse(stdout) as Record<string, unknown>;
  return rest;
}
