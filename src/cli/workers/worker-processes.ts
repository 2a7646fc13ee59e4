import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import { workerEnv } from './worker-env.js';

/** Least time between two restarts of one worker that died. */
const RESTART_DELAY_MILLIS = 1000;

/**
 * `nats|redis --partitions P --workers N`: N consumer processes on this machine, each an instance
 * of its own (`<instance-id>-w<k>`, holding partitions through the same leases as instances on
 * other machines), so the partitions use every core. Each runs this command without `--workers`.
 * A worker that dies is started again after a second (its partitions move meanwhile, as for any
 * instance); SIGINT/SIGTERM stop every worker gracefully. Resolves with the highest exit code.
 */
export async function runWorkerProcesses(
  argv: readonly string[],
  workers: number,
  report: (message: string) => void,
): Promise<number> {
  const base = instanceIdOf(argv) ?? `${hostname()}-${process.pid}`;
  const statusPort = optionOf(argv, '--status-port');
  const childArgv = withoutOptions(argv, ['--workers', '--instance-id', '--status-port']);
  // Each worker serves its own runs: worker k on the status port + k − 1 (0: any free port).
  const statusOf = (k: number): string[] =>
    statusPort === undefined
      ? []
      : ['--status-port', String(Number(statusPort) === 0 ? 0 : Number(statusPort) + k - 1)];
  let stopping = false;
  let stoppedWith: NodeJS.Signals | undefined;
  const running = new Set<ChildProcess>();
  let worst = 0;
  const exits: Promise<void>[] = [];

  const start = (k: number): Promise<void> =>
    new Promise((resolve) => {
      const child = spawn(
        process.execPath,
        [
          ...process.execArgv,
          process.argv[1]!,
          ...childArgv,
          '--instance-id',
          `${base}-w${k}`,
          ...statusOf(k),
        ],
        { stdio: ['ignore', 'inherit', 'inherit'], env: workerEnv(process.env, k) },
      );
      running.add(child);
      child.on('exit', (code, signal) => {
        running.delete(child);
        if (stopping) {
          // Ended by the signal passed on (a worker still starting): nothing was in hand yet.
          worst = Math.max(worst, signal === stoppedWith ? 0 : (code ?? 1));
          resolve();
          return;
        }
        report(
          `worker ${k} exited (${signal ?? `code ${String(code)}`}); starting it again in ${RESTART_DELAY_MILLIS / 1000} s`,
        );
        setTimeout(() => {
          if (stopping) resolve();
          else void start(k).then(resolve);
        }, RESTART_DELAY_MILLIS);
      });
    });

  const stop = (signal: NodeJS.Signals) => {
    stopping = true;
    stoppedWith = signal;
    for (const child of running) child.kill(signal);
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  report(`starting ${workers} worker processes (${base}-w1 … ${base}-w${workers})`);
  for (let k = 1; k <= workers; k += 1) exits.push(start(k));
  await Promise.all(exits);
  return worst;
}

function instanceIdOf(argv: readonly string[]): string | undefined {
  return optionOf(argv, '--instance-id');
}

/** The value of option `name` in `argv` (`--name value` or `--name=value`). */
function optionOf(argv: readonly string[], name: string): string | undefined {
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === name) return argv[i + 1];
    if (arg.startsWith(`${name}=`)) return arg.slice(name.length + 1);
  }
  return undefined;
}

/** `argv` without the given options and their values (`--name value` or `--name=value`). */
function withoutOptions(argv: readonly string[], names: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (names.includes(arg)) {
      i += 1;
      continue;
    }
    if (names.some((name) => arg.startsWith(`${name}=`))) continue;
    out.push(arg);
  }
  return out;
}
