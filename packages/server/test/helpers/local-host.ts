// A process that starts a local agent host on the state directory argv[2] and prints its socket
// directory, for the test that kills it with SIGKILL.
import pino from 'pino';
import { LocalAgentHost } from '../../src/workers/local-agent-host.js';

const state = process.argv[2]!;
const host = new LocalAgentHost({
  dataDir: `${state}/agents`,
  stateDir: state,
  logLevel: 'warn',
  log: pino({ level: 'warn' }),
});
await host.start();
process.stdout.write(`socket-dir ${Reflect.get(host, 'socketDir') as string}\n`);
setInterval(() => {}, 60_000);
