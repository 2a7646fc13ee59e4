// Preloaded into the measured process: prints its peak resident set size and the CPU time it used
// (user + system, every thread of the process) when it exits.
process.on('exit', () => {
  const usage = process.resourceUsage();
  process.stderr.write(
    `bench:maxRSS=${usage.maxRSS}\nbench:cpuMicros=${usage.userCPUTime + usage.systemCPUTime}\n`,
  );
});
