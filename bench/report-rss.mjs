// Preloaded into the measured process (and so into each of its worker threads, where it does
// nothing): prints the process's peak resident set size and the CPU time it used (user + system,
// every thread) when it exits.
import { isMainThread } from 'node:worker_threads';

if (isMainThread)
  process.on('exit', () => {
    const usage = process.resourceUsage();
    process.stderr.write(
      `bench:maxRSS=${usage.maxRSS}\nbench:cpuMicros=${usage.userCPUTime + usage.systemCPUTime}\n`,
    );
  });
