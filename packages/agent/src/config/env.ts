import { readFileSync } from 'node:fs';
// The one module of the agent that reads the environment.
import { resolve } from 'node:path';
// Names only (no schema): an empty host must not load TypeBox (test/start-up.test.ts).
import { channelsFromEnv, MOUNT_ENV } from '@berth/contracts/worker/env';
import { DEFAULT_SESSION_LIMITS, type SessionLimits } from '../storage/sessions.js';

export class AgentConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
  }
}

type Env = Record<string, string | undefined>;

function required(env: Env, name: string): string {
  const v = env[name]?.trim();
  if (!v) throw new AgentConfigError(name, 'is required');
  return v;
}

function wholeNumber(env: Env, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < 0 || v > 1_000_000_000)
    throw new AgentConfigError(name, `expected a whole number ≥ 0, got "${raw}"`);
  return v;
}

/** Session caps (0 turns one off); the host inherits them from the control plane's environment. */
function sessionLimits(env: Env): SessionLimits {
  return {
    maxSessions: wholeNumber(env, 'MAX_SESSIONS_PER_ASSISTANT', DEFAULT_SESSION_LIMITS.maxSessions),
    maxSessionBytes: wholeNumber(env, 'MAX_SESSION_BYTES', DEFAULT_SESSION_LIMITS.maxSessionBytes),
    idleMs: wholeNumber(env, 'SESSION_IDLE_DAYS', DEFAULT_SESSION_LIMITS.idleMs / 86_400_000) * 86_400_000,
  };
}

/** METRICS_TOKEN (DESIGN §7.5): as long as the control plane asks of the same token. */
function metricsToken(env: Env): string | undefined {
  const token = env.METRICS_TOKEN?.trim();
  if (token !== undefined && token !== '' && token.length < 16)
    throw new AgentConfigError('METRICS_TOKEN', 'must be at least 16 characters');
  return token || undefined;
}

function common(env: Env) {
  const port = Number(env.PORT ?? '8090');
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new AgentConfigError('PORT', `expected a port number, got "${env.PORT}"`);
  const budget = env.HISTORY_BUDGET_CHARS ? Number(env.HISTORY_BUDGET_CHARS) : undefined;
  if (budget !== undefined && (!Number.isInteger(budget) || budget < 1000))
    throw new AgentConfigError('HISTORY_BUDGET_CHARS', 'expected a whole number ≥ 1000');
  // settings.burstMs's own bounds (BURST_MS_MAX in @berth/contracts/settings, whose schema a host
  // loads only with its first assistant: test/start-up.test.ts).
  const BURST_MS_MAX = 10_000;
  const burstMs = env.TELEGRAM_BURST_MS?.trim() ? Number(env.TELEGRAM_BURST_MS) : undefined;
  if (burstMs !== undefined && (!Number.isInteger(burstMs) || burstMs < 0 || burstMs > BURST_MS_MAX))
    throw new AgentConfigError(
      'TELEGRAM_BURST_MS',
      `expected a whole number of milliseconds from 0 to ${BURST_MS_MAX}`,
    );
  const pollS = env.TELEGRAM_POLL_TIMEOUT_SECONDS?.trim() ? Number(env.TELEGRAM_POLL_TIMEOUT_SECONDS) : undefined;
  // Telegram holds a long poll for at most 50 s.
  if (pollS !== undefined && (!Number.isInteger(pollS) || pollS < 1 || pollS > 50))
    throw new AgentConfigError('TELEGRAM_POLL_TIMEOUT_SECONDS', 'expected a whole number of seconds from 1 to 50');
  return {
    port,
    sessionLimits: sessionLimits(env),
    host: env.HOST?.trim() || '127.0.0.1',
    /** Listen on this Unix socket instead of HOST:PORT (its directory's mode decides who may connect). */
    socketPath: env.LISTEN_SOCKET?.trim() || undefined,
    dataDir: resolve(env.DATA_DIR?.trim() || './data/agent'),
    logLevel: env.LOG_LEVEL?.trim() || 'info',
    telegramApiRoot: env.TELEGRAM_API_ROOT?.trim() || undefined,
    /** Meta's Graph API with its version (tests point it at FakeWhatsApp); WhatsApp channels without their own. */
    whatsappApiRoot: env.WHATSAPP_API_ROOT?.trim() || undefined,
    /** Where this host's Discord bots reach Discord when their entry names no root (tests: FakeDiscord). */
    discord: {
      apiRoot: env.DISCORD_API_ROOT?.trim() || undefined,
      gatewayUrl: env.DISCORD_GATEWAY_URL?.trim() || undefined,
    },
    allowPrivateFetch: env.FETCH_ALLOW_PRIVATE === 'true',
    /** MCP_ALLOW_INSECURE=true: owners' MCP servers may be http and private addresses (development, tests). */
    allowInsecureMcp: env.MCP_ALLOW_INSECURE?.trim() === 'true',
    /** TELEGRAM_STREAMING=false: no previews while an answer is written, only the answer (fewer Bot API calls). */
    telegramStreaming: env.TELEGRAM_STREAMING?.trim() !== 'false',
    /**
     * TELEGRAM_POLL_TIMEOUT_SECONDS: how long Telegram holds a long poll (default 15, polling.ts).
     * Longer: fewer requests; a network that drops packets shows later (the timeout plus 5 s).
     */
    telegramLongPoll: pollS !== undefined ? { timeoutS: pollS } : undefined,
    /**
     * TELEGRAM_BURST_MS: how long this host's bots gather one user's messages into one turn when
     * the owner has not set settings.burstMs (default 1500). 0 answers each message at once (the
     * test suite runs so; telegram-bursts.test.ts keeps the default).
     */
    telegramBurstMs: burstMs,
    historyBudgetChars: budget,
    /** GET /metrics answers its bearer (unset: only a host's admin token, for its supervisor). */
    metricsToken: metricsToken(env),
  };
}

function jsonOf(env: Env, name: string): unknown {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    throw new AgentConfigError(name, 'is not valid JSON');
  }
}

/**
 * serve: one assistant from the environment, which is the worker spec's mount as a dedicated pod
 * carries it (@berth/contracts/worker mount-env.ts names the variables; the server writes them).
 */
export function loadServeConfig(env: Env = process.env) {
  const c = common(env);
  const E = MOUNT_ENV;
  return {
    ...c,
    agent: {
      name: env.AGENT_NAME?.trim() || 'assistant',
      gatewayToken: required(env, E.gatewayToken),
      model: {
        provider: env[E.modelProvider]?.trim() || 'openai',
        baseUrl: required(env, E.modelBaseUrl),
        modelId: required(env, E.modelId),
        apiKey: required(env, E.modelApiKey),
        // DESIGN §7.3: a comma list ("vision"); and the provider's transcription model, if any.
        capabilities: (env[E.modelCapabilities] ?? '')
          .split(',')
          .map((c) => c.trim())
          .filter(Boolean),
        transcriptionModel: env[E.transcriptionModel]?.trim() || undefined,
      },
      // The host's own options for a Telegram bot (previews, the long poll) beside the spec's entry.
      channels: channelsFromEnv(env).map((ch) =>
        ch.type === 'telegram'
          ? { ...ch, stream: c.telegramStreaming, longPoll: c.telegramLongPoll, burstMs: c.telegramBurstMs }
          : ch,
      ),
      systemPrompt: env.SYSTEM_PROMPT || undefined,
      /** AGENT_SETTINGS: the settings document as JSON (a dedicated worker's Secret); checked in main.ts. */
      settingsJson: jsonOf(env, E.settings),
      /** AGENT_MCP_SERVERS: the owner's MCP servers as JSON (the same Secret); checked in main.ts. */
      mcpServersJson: jsonOf(env, E.mcpServers),
      /** AGENT_CHANNELS: the channels beside Telegram as JSON (the same Secret); checked in main.ts. */
      channelsJson: jsonOf(env, E.channels),
      historyBudgetChars: c.historyBudgetChars,
      allowPrivateFetch: c.allowPrivateFetch,
      allowInsecureMcp: c.allowInsecureMcp,
      // The control plane's search route (web_search) and this deployment's credential for it.
      search: searchTarget(env),
    },
  };
}

/**
 * With ADMIN_TOKEN_STDIN=true the token is the first line of stdin (the control plane's local backend
 * does this, so the token never shows in /proc/<pid>/environ); the caller reads it and passes it in.
 */
export function loadHostConfig(env: Env = process.env, stdinToken?: string) {
  const fromStdin = env.ADMIN_TOKEN_STDIN === 'true';
  // ADMIN_TOKEN_FILE: a mounted Secret (Kubernetes), so the token is not in the environment either.
  const adminToken = fromStdin
    ? stdinToken?.trim()
    : env.ADMIN_TOKEN_FILE
      ? readTokenFile(env.ADMIN_TOKEN_FILE)
      : required(env, 'ADMIN_TOKEN');
  if (!adminToken) throw new AgentConfigError('ADMIN_TOKEN_STDIN', 'stdin closed before the admin token line');
  return {
    ...common(env),
    adminToken,
    adminTokenFromStdin: fromStdin,
    // Tests only: a file holding how far this host's clock runs ahead (scheduler/test-clock.ts).
    testClockFile: env.BERTH_TEST_CLOCK_FILE?.trim() || undefined,
  };
}

function readTokenFile(path: string): string {
  let token: string;
  try {
    token = readFileSync(path, 'utf8').trim();
  } catch (err) {
    throw new AgentConfigError(
      'ADMIN_TOKEN_FILE',
      `cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  if (!token) throw new AgentConfigError('ADMIN_TOKEN_FILE', `${path} is empty`);
  return token;
}

export const wantsStdinToken = (env: Env = process.env) => env.ADMIN_TOKEN_STDIN === 'true';

function searchTarget(env: Env): { url: string; credential: string } | undefined {
  const url = env[MOUNT_ENV.searchUrl]?.trim();
  if (!url) return undefined;
  if (!/^https?:\/\//.test(url)) throw new AgentConfigError(MOUNT_ENV.searchUrl, 'expected an http(s) URL');
  return { url, credential: required(env, MOUNT_ENV.searchCredential) };
}
