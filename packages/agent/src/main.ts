// berth-agent serve | host
import { lstatSync, unlinkSync } from 'node:fs';
import { AgentConfigError, loadHostConfig, loadServeConfig, wantsStdinToken } from './config/env.js';
import { agentLogger } from './logger.js';
import { SessionStore } from './storage/sessions.js';
import { AgentHost } from './runtime/host.js';
import { Scheduler } from './scheduler/scheduler.js';
import { ScheduleRepo } from './storage/schedules.js';
import { hostApp, serveApp } from './runtime/server.js';
import { parseMcpServerList } from './admin/mcp-routes.js';
import { parseChannels, withHostDefaults } from './admin/channel-routes.js';
import { fileClock } from './scheduler/test-clock.js';

async function main(mode: string | undefined) {
  if (mode !== 'serve' && mode !== 'host') {
    console.error(
      'Usage: berth-agent serve   (one agent; config from GATEWAY_TOKEN, MODEL_*, TELEGRAM_BOT_TOKEN, ...)\n       berth-agent host    (many agents; admin API guarded by ADMIN_TOKEN)',
    );
    process.exit(2);
  }
  const stdinToken = mode === 'host' && wantsStdinToken() ? await firstLine(process.stdin) : undefined;
  const config = mode === 'serve' ? loadServeConfig() : loadHostConfig(process.env, stdinToken);
  const log = agentLogger(config.logLevel);
  const store = new SessionStore(config.dataDir, config.sessionLimits);
  let stop: () => Promise<void>;
  let app;
  if (mode === 'serve') {
    // Loaded here, not at the top: host mode loads an assistant (and the settings schema it
    // defaults from) only with its first PUT (test/start-up.test.ts).
    const { Assistant } = await import('./runtime/assistant.js');
    const { settingsJson, mcpServersJson, channelsJson, ...agentConfig } = (
      config as ReturnType<typeof loadServeConfig>
    ).agent;
    let settings: import('@berth/contracts/settings').AssistantSettings | undefined;
    if (settingsJson !== undefined) {
      const { checkSettings } = await import('@berth/contracts/settings');
      const checked = checkSettings(settingsJson);
      if (!checked.ok) throw new AgentConfigError('AGENT_SETTINGS', checked.message);
      settings = checked.settings;
    }
    // The MCP servers a restarted pod had (its Secret): checked as a PUT …/mcp-servers is.
    const mcpServers =
      mcpServersJson === undefined
        ? undefined
        : await parseMcpServerList(mcpServersJson).catch((err: Error) => {
            throw new AgentConfigError('AGENT_MCP_SERVERS', err.message);
          });
    // The channels beside Telegram a restarted pod had (its Secret): checked as a PUT /channels is.
    const defaults = { whatsappApiRoot: config.whatsappApiRoot, discord: config.discord };
    const beside =
      channelsJson === undefined
        ? []
        : withHostDefaults(
            await parseChannels(channelsJson).catch((err: Error) => {
              throw new AgentConfigError('AGENT_CHANNELS', err.message);
            }),
            defaults,
          );
    const channels = [...agentConfig.channels, ...beside];
    const scheduler = new Scheduler(new ScheduleRepo(store.db), log);
    const agent = new Assistant({ ...agentConfig, channels, settings, mcpServers }, store, log, undefined, {
      scheduler,
    });
    const { userData } = await import('./storage/user-data.js');
    // A dedicated worker hands its users' data over when its assistant moves (0024).
    app = serveApp(
      agent,
      log,
      undefined,
      {
        handover: async (name) => {
          scheduler.unregister(name);
          await agent.stop();
          return userData(store).transfer.export(name);
        },
        importUserData: async (name, data) => {
          const imported = userData(store).transfer.import(name, data);
          scheduler.wake();
          return imported;
        },
      },
      config.metricsToken,
      defaults,
    );
    agent.start();
    stop = async () => {
      scheduler.close();
      await agent.stop();
    };
  } else {
    const { testClockFile, adminToken } = config as ReturnType<typeof loadHostConfig>;
    let host: AgentHost | undefined;
    const clock = testClockFile ? fileClock(testClockFile, log, () => host?.scheduler.wake()) : undefined;
    host = new AgentHost(store, log, clock ? { now: clock.now } : {});
    app = hostApp(host, log, adminToken, {
      allowPrivateFetch: config.allowPrivateFetch,
      allowInsecureMcp: config.allowInsecureMcp,
      defaultTelegramApiRoot: config.telegramApiRoot,
      defaultWhatsAppApiRoot: config.whatsappApiRoot,
      defaultDiscord: config.discord,
      telegramStreaming: config.telegramStreaming,
      telegramLongPoll: config.telegramLongPoll,
      telegramBurstMs: config.telegramBurstMs,
      metricsToken: config.metricsToken,
    });
    stop = async () => {
      clock?.close();
      await host.close();
    };
  }
  const shutdown = async () => {
    await app.close();
    await stop();
    store.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown());
  process.on('SIGINT', () => void shutdown());
  if (process.env.BERTH_EXIT_WITH_PARENT === '1') {
    // The supervising control plane holds our stdin; when it dies (even by kill -9) the pipe
    // closes and we go too, so no orphan keeps polling Telegram with its bot tokens.
    process.stdin.on('end', () => void shutdown());
    process.stdin.on('error', () => void shutdown());
    process.stdin.resume();
  }
  if (config.socketPath) removeStaleSocket(config.socketPath);
  const address = config.socketPath
    ? `http+unix://${encodeURIComponent(await app.listen({ path: config.socketPath }))}`
    : await app.listen({ port: config.port, host: config.host });
  // Supervisors (the control plane's local backend, bench scripts) read this line to learn the
  // port when PORT=0, whatever the log level.
  process.stdout.write(`berth-agent ${mode} listening on ${address}\n`);
}

/** Reads one line from the stream and leaves the rest flowing (EOF still means "parent gone"). */
function firstLine(input: NodeJS.ReadableStream): Promise<string | undefined> {
  return new Promise((resolve) => {
    let buf = '';
    const done = (line: string | undefined) => {
      input.off('data', onData);
      input.off('end', onEnd);
      resolve(line);
    };
    const onData = (chunk: Buffer | string) => {
      buf += chunk.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) done(buf.slice(0, nl));
      else if (buf.length > 4096) done(undefined);
    };
    const onEnd = () => done(undefined);
    input.on('data', onData);
    input.once('end', onEnd);
  });
}

/** A socket file left by a host that was killed would make listen fail with EADDRINUSE. */
function removeStaleSocket(path: string) {
  try {
    if (lstatSync(path).isSocket()) unlinkSync(path);
  } catch {
    // absent: nothing to remove
  }
}

main(process.argv[2]).catch((err) => {
  console.error(
    `berth-agent: ${err instanceof AgentConfigError ? `bad configuration: ${err.message}` : (err as Error).message}`,
  );
  process.exit(1);
});
