// Preloaded into the measured process: prints its peak resident set size when it exits.
process.on('exit', () => {
  process.stderr.write(`bench:maxRSS=${process.resourceUsage().maxRSS}\n`);
});
