// Preloaded into the measured CLI process (node --require): reports its peak resident set size
// on fd 2 as it exits, so the bench reads the CLI's own figure rather than sampling from outside.
process.on('exit', () => {
  process.stderr.write(`\n[max-rss-kib] ${process.resourceUsage().maxRSS}\n`);
});
