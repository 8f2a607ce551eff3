// The `berth` process (bin/berth.js loads it): one run on the process's own streams and
// environment, then exit with its code.
import { processIo } from './io.js';
import { run } from './run.js';

run(process.argv.slice(2), processIo()).then((code) => {
  // Let stdout drain before leaving, so a piped --json result is never cut short.
  process.exitCode = code;
  if (process.stdout.writableNeedDrain) process.stdout.once('drain', () => process.exit(code));
  else process.exit(code);
});
