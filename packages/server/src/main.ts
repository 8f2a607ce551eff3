// `npm start`: the control plane with embedded defaults (SQLite in ./data, local payments).
import { loadConfig, ConfigError } from './platform/config/env.js';
import { createRuntime } from './runtime.js';
import { choosePort } from './platform/http/reserve-port.js';

/** Milliseconds of wall time since the process began and of its CPU time, for the start-up log line. */
function mark() {
  const { user, system } = process.cpuUsage();
  return { ms: Math.round(performance.now()), cpuMs: Math.round((user + system) / 1000) };
}

async function main() {
  // Every static import has been evaluated by now: the rest of the start is building and listening.
  const loaded = mark();
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`berth: bad configuration: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  // PORT=0: the port is chosen (and held) now, so that every link the runtime makes names it.
  const chosen = await choosePort(config);
  config = chosen.config;
  // The API listens while the local agent host starts (about a second of a cold start).
  const runtime = await createRuntime(config, { agentHostInBackground: true });
  const built = mark();
  const { app } = runtime;
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    await runtime.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  await chosen.release();
  const address = await app.listen({ port: config.port, host: config.host });
  const listening = mark();
  runtime.hostStarted.catch(async (err: Error) => {
    console.error(`berth: failed to start: ${err.message}`);
    await runtime.close().catch(() => {});
    process.exit(1);
  });
  app.log.info(
    {
      address,
      publicBaseUrl: config.publicBaseUrl,
      store: runtime.store.dialect,
      payments: runtime.services.payments.name,
      workers: runtime.services.workers.name,
      // Where the start's time went: loading the code, building the app, listening (bench:cold-start).
      startup: { loaded, built, listening },
    },
    'berth control plane ready',
  );
  // One line for the person who just typed `npm start`, beside the JSON log on stdout.
  process.stderr.write(
    `\nBerth is running: open ${config.publicBaseUrl}/ (dashboard); API ${config.publicBaseUrl}/api/v1/assistants; OpenAPI ${config.publicBaseUrl}/api/openapi\n\n`,
  );
}

main().catch((err) => {
  console.error(`berth: failed to start: ${(err as Error).message}`);
  process.exit(1);
});
