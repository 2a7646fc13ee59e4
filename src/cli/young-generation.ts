// The CLI's young generation. V8 grows a process's young generation with the memory it may use: on a
// machine with many GiB, each semi-space grows to 64 MiB. The bridge allocates many short-lived
// objects per event, and with semi-spaces that large each scavenge walks memory that has left the
// caches, and freed pages are faulted in again. Measured on 200 000 events, 16 MiB semi-spaces took
// 8-12 % less CPU and 28 % less peak memory (docs/performance.md).
//
// V8 reads the size once, as the process starts, so the CLI starts itself again in the same
// process (`process.execve`: same pid, stdio, signals and exit status) with the flag, before any of
// its code is loaded. That start costs about 0.07 s, which pays once the work is long: a command
// that runs until it is stopped, or files of at least `LARGE_INPUT_BYTES` to ingest or validate.
// Not done where the user chose a size (`--max-semi-space-size` in the command line or in
// `NODE_OPTIONS`), where Node has no `execve` (Windows, Node before 22.15), or in a single
// executable application (its executable takes no Node flags).
import { fstatSync, statSync } from 'node:fs';

/** The semi-space size the CLI asks for, in MiB. */
export const SEMI_SPACE_MIB = 16;
export const SEMI_SPACE_FLAG = `--max-semi-space-size=${SEMI_SPACE_MIB}`;
/**
 * A worker thread's young generation, in MiB, set where it is made (no second start needed): V8
 * counts a young generation as three semi-spaces, so this gives a worker the CLI's semi-spaces.
 */
export const WORKER_YOUNG_GENERATION_MIB = 3 * SEMI_SPACE_MIB;
/** Files to ingest or validate from this size on are worth the second start. */
export const LARGE_INPUT_BYTES = 16 * 1024 * 1024;

/** What `sizeOf` is asked for stdin's size (and how the CLI names stdin). */
export const STDIN = '-';

/** Commands that run until they are stopped. */
const LONG_RUNNING = new Set(['crabtalk', 'nats', 'redis', 'route', 'serve']);
/** Commands that read the files they are given. */
const READING_FILES = new Set(['ingest', 'validate']);

/** Whether the command in `args` (the CLI's arguments) is worth starting again for. */
export function wantsLargeYoungGeneration(
  args: readonly string[],
  sizeOf: (path: string) => number | undefined = fileSize,
): boolean {
  const command = args.find((a) => !a.startsWith('-'));
  if (command === undefined) return false;
  if (LONG_RUNNING.has(command)) return true;
  if (!READING_FILES.has(command)) return false;
  if (args.includes('--follow') || args.includes('-f')) return true;
  const rest = args.slice(args.indexOf(command) + 1);
  let bytes = 0;
  let named = false;
  // Every argument that names a file counts (an option's value that is a file is small).
  for (const arg of rest) {
    const size = arg.startsWith('-') ? undefined : sizeOf(arg);
    if (size === undefined) continue;
    bytes += size;
    named = true;
  }
  // Stdin where it is read (no file named, or `-`), if it is a file itself (`< events.ndjson`).
  if (!named || rest.includes(STDIN)) bytes += sizeOf(STDIN) ?? 0;
  return bytes >= LARGE_INPUT_BYTES;
}

/**
 * The resource limits for an `ingest` worker thread: `WORKER_YOUNG_GENERATION_MIB`, unless the
 * user chose a size for the process (then the worker keeps it, as every isolate does).
 */
export function workerResourceLimits(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string | undefined = process.env.NODE_OPTIONS,
): { maxYoungGenerationSizeMb: number } | undefined {
  if (
    sizeChosen(
      execArgv.filter((a) => a !== SEMI_SPACE_FLAG),
      nodeOptions,
    )
  )
    return undefined;
  return { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MIB };
}

/** Whether the user chose the young generation's size already. */
export function sizeChosen(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  const chosen = (flag: string) => /^--max[-_]semi[-_]space[-_]size\b/.test(flag);
  return execArgv.some(chosen) || (nodeOptions ?? '').split(/\s+/).some(chosen);
}

/**
 * Starts the CLI again with `SEMI_SPACE_FLAG` where that pays (see above); returns where it does
 * not, or where starting again failed (the CLI then runs as it is).
 */
export function startWithYoungGeneration(): void {
  if (typeof process.execve !== 'function' || isSingleExecutable()) return;
  if (sizeChosen(process.execArgv, process.env.NODE_OPTIONS)) return;
  if (!wantsLargeYoungGeneration(process.argv.slice(2))) return;
  try {
    process.execve(
      process.execPath,
      [process.execPath, SEMI_SPACE_FLAG, ...process.execArgv, ...process.argv.slice(1)],
      process.env,
    );
  } catch {
    // Runs in this process, with V8's own size.
  }
}

function fileSize(path: string): number | undefined {
  try {
    const stats = path === STDIN ? fstatSync(0) : statSync(path);
    return stats.isFile() ? stats.size : undefined;
  } catch {
    return undefined;
  }
}

function isSingleExecutable(): boolean {
  // A single executable application's `process.execPath` is the application itself.
  const sea = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule?.(
    'node:sea',
  ) as { isSea?: () => boolean } | undefined;
  return sea?.isSea?.() === true;
}
