// The local worker backend: one `berth-agent host` child process holding every assistant, each
// under /agents/{workerName}. The control plane starts it, restarts it with backoff when it dies,
// and tells whoever listens (the reconciler) so the assistants come back.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  chmodSync,
  chownSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { botUsernameOf } from './bot-username.js';
import { agentCall, namesOf, refusal, settingsApplied } from './agent-client.js';
import { troublesOf } from './troubles.js';
import type { Pool } from 'undici';
import { newUpstreamPool, upstreamAddress } from '../chat/index.js';
import type { FastifyBaseLogger } from 'fastify';
import { backoff } from '../platform/jobs/backoff.js';
import type { AssistantSettings } from '@berth/contracts/settings';
import { KEPT_LINES, lastWords } from './agent-host-last-words.js';
import { assertReachableBy } from './uid-access.js';
import { agentHostMount, type TelegramWebhookFor } from './agent-host-mount.js';
import { HOST_MALLOC_ENV } from './host-memory.js';
import {
  WORKER_PAGE,
  type AssistantMethod,
  type WorkerNamesPage,
  WorkerUpstreamError,
  type WorkerHealth,
  type WorkerSpec,
  type WorkersPort,
} from './port.js';

const AGENT_BIN = join(createRequire(import.meta.url).resolve('@berth/agent'), '../../bin/berth-agent.js');

export interface LocalAgentHostOptions {
  dataDir: string;
  /** The control plane's own directory, where the socket directory is noted (default: dataDir). */
  stateDir?: string;
  telegramApiRoot?: string;
  /** Meta's Graph API for the host's WhatsApp channels (its WHATSAPP_API_ROOT). */
  whatsappApiRoot?: string;
  /** DISCORD_API_ROOT and DISCORD_GATEWAY_URL, handed to the host process for its Discord bots. */
  discord?: { apiRoot?: string; gatewayUrl?: string };
  /** TELEGRAM_DELIVERY=webhook: each bot's webhook URL (the ingress) and secret_token. */
  telegramWebhook?: TelegramWebhookFor;
  logLevel: string;
  log: FastifyBaseLogger;
  /** Where the host's own log lines go (default: this process's stdout). */
  logSink?: (line: string) => void;
  allowPrivateFetch?: boolean;
  /** MCP_ALLOW_INSECURE for the host: http and private MCP servers (development, tests). */
  allowInsecureMcp?: boolean;
  onRestart?: () => void;
  /**
   * Run the host as this uid (and the same gid), not ours: set when the control plane runs as
   * root. The host runs tenants' tools; as another uid it cannot read /proc/<control plane>/environ
   * (SECRETS_KEY, the router key) or attach to the control plane. Its socket and data directories
   * are handed to that uid.
   */
  runAsUid?: number;
  /** The host's program: the agent package's bin by default (a test runs a copy elsewhere). */
  agentBin?: string;
  /** The host died and will be restarted; `restarts` counts quick deaths in a row (crash loop). */
  onExit?: (info: { code: number | null; restarts: number }) => void;
}

/**
 * The only variables of the control plane's environment the agent host inherits: what Node and
 * TLS need, locale and time zone, and the agent's own tuning. Everything else (SECRETS_KEY,
 * DATABASE_URL, Stripe and provider keys, whatever an operator adds later) stays out of
 * /proc/<pid>/environ of a process that runs tenants' tools.
 */
const INHERITED = [
  'PATH',
  'HOME',
  'LANG',
  'LC_ALL',
  'TZ',
  'TMPDIR',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'HISTORY_BUDGET_CHARS',
  // How long Telegram holds a long poll (the agent's config/env.ts).
  'TELEGRAM_POLL_TIMEOUT_SECONDS',
  // How long its bots gather one user's messages when the owner has not said (the agent's config/env.ts).
  'TELEGRAM_BURST_MS',
  // Session caps of the agent runtime (docs/decisions/0016-limits.md).
  'MAX_SESSIONS_PER_ASSISTANT',
  'MAX_SESSION_BYTES',
  'SESSION_IDLE_DAYS',
  // Tests only: the host's clock a test moves forward (the agent's scheduler/test-clock.ts).
  'BERTH_TEST_CLOCK_FILE',
];

export function agentHostEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const name of INHERITED) if (env[name] !== undefined) out[name] = env[name];
  return out;
}

/** Where the directory of the current socket is noted, so the next start can remove a stale one. */
const SOCKET_DIR_NOTE = 'agent-host-socket-dir';

/**
 * A control plane killed with SIGKILL cannot remove its socket directory: the next start on the
 * same data directory does (only a directory of ours in the temporary directory, by the note).
 */
function removeStaleSocketDir(stateDir: string, owners: Array<number | undefined>) {
  const note = join(stateDir, SOCKET_DIR_NOTE);
  let stale: string;
  try {
    stale = readFileSync(note, 'utf8').trim();
  } catch {
    return;
  }
  if (dirname(stale) === tmpdir() && basename(stale).startsWith('berth-host-')) {
    try {
      if (owners.includes(lstatSync(stale).uid)) rmSync(stale, { recursive: true, force: true });
    } catch {
      /* already gone */
    }
  }
  rmSync(note, { force: true });
}

function chownTree(path: string, uid: number) {
  const st = lstatSync(path);
  if (st.uid !== uid) lchownSync(path, uid, uid);
  if (st.isDirectory()) for (const name of readdirSync(path)) chownTree(join(path, name), uid);
}

export class LocalAgentHost implements WorkersPort {
  readonly name = 'local';
  readonly perReplica = true;
  private child: ChildProcess | undefined;
  private url = '';
  private pool: Pool | undefined;
  /** New for every spawn, handed over stdin: a host that died takes its token with it. */
  private adminToken = '';
  /**
   * The host listens on a Unix socket in a directory only this user can enter (mkdtemp makes it
   * 0700): no other local process can take over a freed TCP port and receive chat traffic with
   * gateway tokens while the host restarts.
   */
  private readonly socketDir: string;
  private readonly socketPath: string;
  private stopping = false;
  /** Pools to other replicas' hosts on this machine (runsElsewhere). */
  private readonly otherHosts = new Map<string, Pool>();
  private restarts = 0;
  private starting: Promise<void> | undefined;
  /** The first start: calls made while it runs wait for it (the API listens meanwhile, runtime.ts). */
  private firstStart: Promise<void> | undefined;

  constructor(private readonly o: LocalAgentHostOptions) {
    const state = o.stateDir ?? o.dataDir;
    mkdirSync(state, { recursive: true });
    removeStaleSocketDir(state, [process.getuid?.(), o.runAsUid]);
    this.socketDir = mkdtempSync(join(tmpdir(), 'berth-host-'));
    this.socketPath = join(this.socketDir, 'host.sock');
    writeFileSync(join(state, SOCKET_DIR_NOTE), this.socketDir, { mode: 0o600 });
  }

  get pid() {
    return this.child?.pid;
  }

  start(): Promise<void> {
    this.stopping = false;
    this.starting ??= this.spawnHost().finally(() => {
      this.starting = undefined;
    });
    this.firstStart ??= this.starting;
    return this.starting;
  }

  /** `start()` once `after` resolves (unless stopped by then); calls to the host wait for it meanwhile. */
  startAfter(after: Promise<unknown>): Promise<void> {
    const started = after.then(() => (this.stopping ? undefined : this.start()));
    this.firstStart ??= started;
    return started;
  }

  async stop() {
    this.stopping = true;
    const child = this.child;
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      // The grace timer is cleared once the host exits: left running, it held every process that
      // stopped a host (a test file, `berth` shutting down) open for 5 s more.
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((r) => (grace = setTimeout(r, 5000)))]);
      clearTimeout(grace);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    await this.pool?.close();
    this.pool = undefined;
    await Promise.all([...this.otherHosts.values()].map((p) => p.close()));
    this.otherHosts.clear();
    rmSync(this.socketDir, { recursive: true, force: true });
    rmSync(join(this.o.stateDir ?? this.o.dataDir, SOCKET_DIR_NOTE), { force: true });
  }

  /** Hands the socket and data directories to the host's uid (and lets it reach its data directory). */
  private prepareForUid(uid: number, bin: string) {
    mkdirSync(this.o.dataDir, { recursive: true });
    chownSync(this.socketDir, uid, uid);
    chownTree(this.o.dataDir, uid);
    // The directories above the data directory must be traversable (not listable) by the host's
    // uid: search permission for others is added to those of ours that lack it, and said once.
    for (let d = dirname(this.o.dataDir); d !== dirname(d); d = dirname(d)) {
      const st = statSync(d);
      if (st.mode & 0o001 || st.uid !== process.getuid?.()) continue;
      chmodSync(d, (st.mode & 0o7777) | 0o001);
      this.o.log.info({ dir: d }, 'made traversable for the agent host uid');
    }
    // Its program and Node must be reachable by that uid as they are, or through the data
    // directory's parents just opened (code and data in one release directory): uid-access.ts
    // says why the code's are not opened here. Else the start fails with the directory to open.
    assertReachableBy(uid, [bin, process.execPath]);
  }

  private async spawnHost(): Promise<void> {
    this.adminToken = randomBytes(32).toString('base64url');
    const uid = this.o.runAsUid;
    const bin = this.o.agentBin ?? AGENT_BIN;
    if (uid !== undefined) this.prepareForUid(uid, bin);
    const child = spawn(process.execPath, [bin, 'host'], {
      ...(uid !== undefined ? { uid, gid: uid } : {}),
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {
        ...agentHostEnv(process.env),
        ...HOST_MALLOC_ENV,
        // The same socket across restarts, so workerUrls stay valid.
        LISTEN_SOCKET: this.socketPath,
        DATA_DIR: this.o.dataDir,
        ADMIN_TOKEN_STDIN: 'true',
        LOG_LEVEL: this.o.logLevel,
        BERTH_EXIT_WITH_PARENT: '1',
        FETCH_ALLOW_PRIVATE: this.o.allowPrivateFetch ? 'true' : 'false',
        // The same MCP address policy as the control plane's URL check (DESIGN §9.2).
        MCP_ALLOW_INSECURE: this.o.allowInsecureMcp ? 'true' : 'false',
        ...(this.o.telegramApiRoot ? { TELEGRAM_API_ROOT: this.o.telegramApiRoot } : {}),
        ...(this.o.whatsappApiRoot ? { WHATSAPP_API_ROOT: this.o.whatsappApiRoot } : {}),
        ...(this.o.discord?.apiRoot ? { DISCORD_API_ROOT: this.o.discord.apiRoot } : {}),
        ...(this.o.discord?.gatewayUrl ? { DISCORD_GATEWAY_URL: this.o.discord.gatewayUrl } : {}),
      },
    });
    this.child = child;
    child.stdin!.on('error', () => {}); // EPIPE when it dies first; 'exit' reports that
    child.stdin!.write(`${this.adminToken}\n`);
    const sink = this.o.logSink ?? ((line: string) => process.stdout.write(line + '\n'));
    // The host's last words, for the operator when it dies before listening (a bad setting, a
    // code directory its uid cannot read): agent-host-last-words.ts.
    const lastLines: string[] = [];
    createInterface({ input: child.stderr! }).on('line', (line) => {
      if (lastLines.push(line) > KEPT_LINES) lastLines.shift();
      sink(line);
    });
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the agent host did not start within 60 s')), 60_000);
      // Node itself not started (not found, or not executable as that uid): no 'exit' comes.
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(new Error(`the agent host could not be started: ${err.message}`));
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        // Its last stderr lines may still be on their way: read to the end (a second at most).
        const told = () => {
          const words = lastWords(lastLines, this.o.runAsUid);
          const said = words ? `: ${words}` : '';
          reject(new Error(`the agent host exited during start-up (code ${code})${said}`));
        };
        if (child.stderr!.readableEnded) return told();
        const late = setTimeout(told, 1000);
        child.stderr!.once('end', () => {
          clearTimeout(late);
          told();
        });
      });
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const m = /^berth-agent host listening on (\S+)$/.exec(line);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        } else sink(line);
      });
    });
    this.url = url;
    void this.pool?.close();
    this.pool = newUpstreamPool(url, { connections: 16, keepAliveTimeout: 30_000 });
    const startedAt = Date.now();
    child.removeAllListeners('exit');
    child.once('exit', (code, signal) => {
      // Nothing is routed to a dead host: admin calls fail fast until the new one is up.
      if (this.child === child) {
        void this.pool?.close();
        this.pool = undefined;
      }
      if (this.stopping || this.child !== child) return;
      // Back off if it keeps dying; a host that ran for a minute starts the count again.
      this.restarts = Date.now() - startedAt > 60_000 ? 0 : this.restarts + 1;
      const delay = backoff(this.restarts, { baseMs: 250, capMs: 30_000 });
      this.o.log.error({ code, signal, restartInMs: delay }, 'agent host exited; restarting');
      this.o.onExit?.({ code, restarts: this.restarts });
      setTimeout(() => {
        if (this.stopping) return;
        this.start().then(
          () => this.o.onRestart?.(),
          (err) => this.o.log.error({ err: (err as Error).message }, 'agent host restart failed'),
        );
      }, delay);
    });
    this.o.log.info({ url, pid: child.pid }, 'agent host started');
  }

  private async call(method: 'GET' | 'PUT' | 'POST' | 'DELETE', path: string, body?: unknown) {
    // A restarting host fails calls fast; the first start is waited for.
    if (!this.pool && this.firstStart) await this.firstStart.catch(() => {});
    if (!this.pool) throw new WorkerUpstreamError(undefined, 'the agent host is not running');
    return agentCall({ pool: this.pool, path }, method, {
      token: this.adminToken,
      body,
      who: 'the agent host',
      unreachableStatus: undefined,
    });
  }

  async createWorker(spec: WorkerSpec) {
    const res = await this.call(
      'PUT',
      `/agents/${spec.workerName}`,
      agentHostMount(spec, this.o.telegramApiRoot, this.o.telegramWebhook),
    );
    if (res.status !== 200) throw refusal(res, 'the agent host');
    return { workerUrl: `${this.url}/agents/${spec.workerName}` };
  }

  async applySettings(name: string, settings: AssistantSettings) {
    return settingsApplied(await this.call('PUT', `/agents/${name}/settings`, settings), 'the agent host');
  }

  async assistantCall(name: string, method: AssistantMethod, path: string, body?: unknown) {
    return this.call(method, `/agents/${name}${path}`, body);
  }

  async deleteWorker(name: string, opts: { purge?: boolean } = {}) {
    const res = await this.call('DELETE', `/agents/${name}${opts.purge ? '?purge=true' : ''}`);
    if (res.status === 200) return 'deleted' as const;
    if (res.status === 404) return 'not_found' as const;
    throw new WorkerUpstreamError(res.status, `the agent host answered ${res.status}`);
  }

  async workerHealth(name: string): Promise<WorkerHealth> {
    const res = await this.call('GET', `/agents/${name}/health`);
    if (res.status === 404) return { ready: false, failed: false, reason: 'the worker is not running' };
    return {
      ready: res.json?.ready === true,
      failed: res.json?.status === 'failed',
      reason: res.json?.reason ?? null,
      botUsername: botUsernameOf(res.json),
    };
  }

  /**
   * The host's own Prometheus text (its GET /metrics, opened by the admin token: the host's
   * environment never holds METRICS_TOKEN); empty when it does not answer.
   */
  async hostMetrics(): Promise<string> {
    const res = await this.call('GET', '/metrics');
    return res.status === 200 ? res.text : '';
  }

  /**
   * Whether `workerUrl` is a worker of another replica's agent host on this machine that is still
   * there: its health answers (ready or not), or the host is there but slow to say (a busy host is
   * left alone for this pass: taking it for gone would start a second poller of the bot). This
   * host's own workers, and a host that is gone (its replica died: the socket refuses or is
   * missing), are not.
   */
  async runsElsewhere(workerUrl: string): Promise<boolean> {
    if (!this.url || workerUrl.startsWith(`${this.url}/`)) return false;
    // A socket that is not there (the usual case: this replica's own host before it restarted)
    // costs a stat, not a connection attempt: start-up restores may ask this of every record.
    const address = upstreamAddress(workerUrl);
    if (!address.socketPath || !existsSync(address.socketPath)) return false;
    // One keep-alive pool per other host (a machine runs a few replicas), not one per question.
    let pool = this.otherHosts.get(address.key);
    if (!pool) {
      pool = newUpstreamPool(workerUrl, { connections: 4 });
      this.otherHosts.set(address.key, pool);
    }
    try {
      const res = await pool.request({
        method: 'GET',
        path: `${address.path}/health`,
        headersTimeout: 5000,
        bodyTimeout: 5000,
      });
      await res.body.dump();
      return res.statusCode !== 404;
    } catch (err) {
      const code = (err as { code?: string }).code;
      return !(code === 'ECONNREFUSED' || code === 'ENOENT');
    }
  }

  /** The host's GET /troubles: its agents that are not well, with their reasons. */
  async troubledWorkers(): Promise<Map<string, string>> {
    const res = await this.call('GET', '/troubles');
    if (res.status !== 200)
      throw new WorkerUpstreamError(res.status, `reading the agent host's troubles: ${res.status}`);
    return troublesOf(res.json);
  }

  /** A page of GET /agents (name order; the cursor is the last name of the page before). */
  async listWorkers(page: { cursor?: string; limit?: number } = {}): Promise<WorkerNamesPage> {
    const query = new URLSearchParams({ limit: String(Math.min(page.limit ?? WORKER_PAGE, WORKER_PAGE)) });
    if (page.cursor !== undefined) query.set('after', page.cursor);
    const res = await this.call('GET', `/agents?${query}`);
    if (res.status !== 200)
      throw new WorkerUpstreamError(res.status, `listing the agent host's workers: ${res.status}`);
    return namesOf(res.json);
  }
}
