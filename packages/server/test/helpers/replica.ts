// A second control-plane process on the same database, for tests of what must hold across
// replicas. Workers are a fake (the first process runs the real ones); prints its URL when ready.
import type { AddressInfo } from 'node:net';
import { createRuntime, loadConfig } from '../../src/index.js';
import { capturingLogger } from './logs.js';
import { FakeWorkers } from './fake-workers.js';

const runtime = await createRuntime(loadConfig(process.env), {
  workers: new FakeWorkers(),
  logger: capturingLogger('warn').logger,
  runner: { pollMs: 1000 },
});
await runtime.app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(
  `${JSON.stringify({ url: `http://127.0.0.1:${(runtime.app.server.address() as AddressInfo).port}`, gatewayUrl: runtime.gatewayUrl() })}\n`,
);
process.on('SIGTERM', () => void runtime.close().finally(() => process.exit(0)));
