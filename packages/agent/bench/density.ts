// bench:density — how many idle agents one host process holds. Starts a real agent host, adds
// agents that long-poll a loopback Telegram fake, and prints RSS per agent and event-loop delay,
// next to the empty host as the baseline. Hosts: a first start, a restart on its data directory,
// one whose agents also have a WhatsApp number, one whose agents also have a Discord bot (each bot
// its own Gateway WebSocket to a loopback Discord fake), one whose bots take their updates by
// webhook (TELEGRAM_DELIVERY=webhook: nothing polls). DENSITY_SIZES picks the sizes,
// DENSITY_PHASES the hosts (default all five).
import { request } from 'undici';
import { type DiscordBot, FakeDiscord, FakeTelegram, FakeWhatsApp } from '@berth/testkit';
import { scratchDir } from '@berth/testkit/scratch-dir';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { spawnHost } from './spawn-host.js';

const SIZES = (process.env.DENSITY_SIZES ?? '10,100,1000,10000').split(',').map(Number);
const SETTLE_MS = Number(process.env.DENSITY_SETTLE_MS ?? 5000);
/**
 * This process holds the fakes' end of every agent's connections: a Telegram long poll each, and
 * on the Discord host a Gateway WebSocket each too. Its open-file limit caps that host's N.
 */
const OPEN_FILES = Number(/Max open files\s+(\d+)/.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1] ?? Infinity);
const discordFits = (n: number) => 2 * n + 500 <= OPEN_FILES;
// Webhooks last: the hosts after it would find each bot's webhook set and delete it before polling.
const PHASES = ['first start', 'restart', 'with WhatsApp', 'with Discord', 'webhook delivery'] as const;
type Phase = (typeof PHASES)[number];
const RUN = new Set(
  (process.env.DENSITY_PHASES ?? PHASES.join(',')).split(',').map((p) => {
    if (!PHASES.includes(p.trim() as Phase)) throw new Error(`DENSITY_PHASES: "${p}" is none of ${PHASES.join(', ')}`);
    return p.trim() as Phase;
  }),
);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ADMIN = 'bench-admin-token-0123456789abcdef';
const MB = 1024 * 1024;

/** RSS of a bare node process that imports `modules` (from this package) and idles: the floor under the host. */
async function idleRss(modules: string[]): Promise<number> {
  const code = `for (const m of ${JSON.stringify(modules)}) await import(m); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
    cwd: import.meta.dirname,
    stdio: 'ignore',
  });
  await sleep(1500);
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
  child.kill('SIGKILL');
  return m ? Number(m[1]) * 1024 : NaN;
}
// What an empty host loads at start: its HTTP framework, logger and session store (the schema
// library comes with the first agent; docs/decisions/0015, "Third pass").
const HOST_DEPS = ['fastify', 'pino', 'better-sqlite3'];

const tg = await new FakeTelegram().start();
const wa = await new FakeWhatsApp().start();
// Discord's real heartbeat interval (41.25 s): an idle bot's Gateway traffic is what it would be.
const dc = await new FakeDiscord().start();
const dataDir = scratchDir('berth-density-');
// The third host: every agent also has a WhatsApp number (its updates come by webhook: nothing polls).
const whatsappDir = scratchDir('berth-density-whatsapp-');
const numberFor = (i: number) => wa.addNumber({ phoneNumberId: String(100_000_000_000_000 + i) });
// The fourth host: every agent also has a Discord bot, one Gateway connection each (identify, READY,
// heartbeats every 41.25 s) and its slash commands set once at READY.
const discordDir = scratchDir('berth-density-discord-');
const discordBots: DiscordBot[] = [];
const discordBotFor = (i: number) => {
  discordBots[i] ??= dc.addBot({ username: `density-${i}` });
  return discordBots[i];
};
// The fifth host: every bot in webhook mode, as a control plane with TELEGRAM_DELIVERY=webhook hands
// it (the ingress URL and secret_token per bot); idle, Telegram has nothing to POST.
const webhookDir = scratchDir('berth-density-webhook-');
const webhookFor = (i: number) => ({
  url: `https://berth.example/telegram/webhook/00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  secretToken: `density-secret-${i}`,
});
/** Bot tokens added to the fake so far (the webhook host's bots are its own: see botOf). */
const telegramBots = new Set<string>();
/** Each host and size's figures unrounded, so a ratio is not one of two-decimal roundings. */
const exact = new Map<string, { mbPerAgent: number; p99: number; cpu: number; addingMs: number; complete: boolean }>();
const tokenFor = (i: number) => `${8000000000 + i}:AAdensityBenchFakeToken_${String(i).padStart(12, '0')}`;
const menuCalls = () => {
  let calls = 0;
  for (const token of telegramBots) calls += tg.setMyCommandsCalls(token);
  return calls;
};
/** Calls that set a bot's menu in a language to what it already had: the waste the goal forbids. */
const menuRepeats = () => {
  let repeats = 0;
  for (const token of telegramBots) repeats += tg.setMyCommandsRepeats(token);
  return repeats;
};

/**
 * One host from start to stop: the empty host, then agents added up to each size. Run twice on
 * one data directory: the first start sets every bot's / menu (six setMyCommands calls each), the
 * restart finds each call it made recorded in the agent store and makes only those still owed
 * (docs/decisions/0022, 0033-density-idle-and-menu). The calls are paced (menu-queue.ts), so a
 * phase that ends first stops with calls still owed: a column counts the repeated ones.
 */
async function phase(label: Phase, rows: string[][]) {
  const withWhatsApp = label === 'with WhatsApp';
  const withDiscord = label === 'with Discord';
  const byWebhook = label === 'webhook delivery';
  // The webhook host's bots are new to the fake: a first start of their own, menus owed and none
  // already set by the hosts before it (which would make its every menu call a repeat).
  const botOf = (i: number) => tokenFor(byWebhook ? 1_000_000 + i : i);
  const { child, url } = await spawnHost({
    ADMIN_TOKEN: ADMIN,
    DATA_DIR: withWhatsApp ? whatsappDir : withDiscord ? discordDir : byWebhook ? webhookDir : dataDir,
    WHATSAPP_API_ROOT: wa.url,
    TELEGRAM_API_ROOT: tg.url,
    DISCORD_API_ROOT: dc.apiRoot,
    DISCORD_GATEWAY_URL: dc.gatewayUrl,
    LOG_LEVEL: 'warn',
  });
  const admin = (method: 'GET' | 'PUT', path: string, body?: unknown) =>
    request(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    }).then((r) => r.body.json() as Promise<any>);
  /** Median time of 21 scrapes of `path` (GET /metrics against GET /stats, its baseline, same host). */
  const timed = async (path: string) => {
    const ms: number[] = [];
    for (let i = 0; i < 21; i++) {
      const t = performance.now();
      await (await request(`${url}${path}`, { headers: { authorization: `Bearer ${ADMIN}` } })).body.text();
      ms.push(performance.now() - t);
    }
    return ms.sort((a, b) => a - b)[10]!.toFixed(2);
  };
  /** user + system CPU time of the host so far, in seconds (clock ticks of 1/100 s). */
  const cpuSeconds = () => {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
  const stats = async () => {
    await admin('GET', '/stats?reset=true');
    const [cpu0, t0] = [cpuSeconds(), performance.now()];
    await sleep(SETTLE_MS);
    const cpuPercent = ((cpuSeconds() - cpu0) / ((performance.now() - t0) / 1000)) * 100;
    return { ...(await admin('GET', '/stats')), cpuPercent };
  };
  try {
    const callsBefore = menuCalls();
    const repeatsBefore = menuRepeats();
    const base = await stats();
    rows.push([
      label,
      '0 (baseline)',
      (base.rss / MB).toFixed(1),
      '—',
      String(base.eventLoopDelayMs.p50),
      String(base.eventLoopDelayMs.p99),
      base.cpuPercent.toFixed(1),
      '0',
      '—',
      '0',
      await timed('/metrics'),
      await timed('/stats'),
      withDiscord ? '0' : '—',
      '0',
    ]);
    let added = 0;
    /** Time spent adding agents so far on this host, the settle windows left out. */
    let addingMs = 0;
    /** Every step so far had all its agents up before the deadline (else addingMs holds a wait). */
    let allUp = true;
    for (const n of SIZES) {
      if (withDiscord && !discordFits(n)) {
        rows.push([label, String(n), `not run: needs ${2 * n + 500} open files here, the limit is ${OPEN_FILES}`]);
        continue;
      }
      process.stderr.write(`${label}: adding agents up to ${n}…\n`);
      const addFrom = added;
      const addStart = performance.now();
      for (; added < n; added++) {
        if (!telegramBots.has(botOf(added))) {
          tg.addBot(botOf(added));
          telegramBots.add(botOf(added));
        }
        const number = withWhatsApp ? numberFor(added) : undefined;
        const discord = withDiscord ? discordBotFor(added) : undefined;
        await admin('PUT', `/agents/agent-${added}`, {
          gatewayToken: `gateway-token-${added}-0123456789`,
          model: { provider: 'fakeai', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'm', apiKey: 'sk-unused' },
          channels: [
            { type: 'telegram', botToken: botOf(added), ...(byWebhook ? { webhook: webhookFor(added) } : {}) },
            ...(number
              ? [{ type: 'whatsapp', phoneNumberId: number.phoneNumberId, accessToken: number.accessToken }]
              : []),
            ...(discord ? [{ type: 'discord', botToken: discord.token, applicationId: discord.applicationId }] : []),
          ],
        });
      }
      const deadline = Date.now() + 60_000;
      let polling = 0;
      let online = 0;
      while (Date.now() < deadline) {
        polling = [...Array(n).keys()].filter((i) =>
          byWebhook ? tg.webhookUrl(botOf(i)) === webhookFor(i).url : tg.activePolls(botOf(i)) > 0,
        ).length;
        online = withDiscord ? dc.onlineBots() : n;
        if (polling === n && online === n) break;
        await sleep(200);
      }
      // Adding (each PUT answered) until every added agent polls or has its webhook set (and, with
      // Discord, every bot's Gateway session is READY): start-up cost per thousand added.
      const perThousand = ((performance.now() - addStart) / 1000 / Math.max(1, n - addFrom)) * 1000;
      addingMs += performance.now() - addStart;
      // Measured while the menus are still being set (paced in the background, menu-queue.ts):
      // the idle CPU from the first start includes them.
      const s = await stats();
      exact.set(`${label}:${n}`, {
        mbPerAgent: (s.rss - base.rss) / n / MB,
        p99: s.eventLoopDelayMs.p99,
        cpu: s.cpuPercent,
        addingMs,
        // Every agent polled (or had its webhook set) before the 60 s deadline: its time is the time to add them.
        complete: (allUp &&= polling === n && online === n),
      });
      rows.push([
        label,
        String(n),
        (s.rss / MB).toFixed(1),
        ((s.rss - base.rss) / n / MB).toFixed(2),
        String(s.eventLoopDelayMs.p50),
        String(s.eventLoopDelayMs.p99),
        s.cpuPercent.toFixed(1),
        String(polling),
        perThousand.toFixed(2),
        String(menuCalls() - callsBefore),
        await timed('/metrics'),
        await timed('/stats'),
        withDiscord ? String(dc.onlineBots()) : '—',
        String(menuRepeats() - repeatsBefore),
      ]);
    }
    return base.rss as number;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

try {
  const rows: string[][] = [];
  const nodeAlone = await idleRss([]);
  const depsAlone = await idleRss(HOST_DEPS);
  let emptyHost = Number.NaN;
  for (const label of PHASES) {
    if (!RUN.has(label)) continue;
    const rss = await phase(label, rows);
    if (Number.isNaN(emptyHost)) emptyHost = rss;
  }
  const base = { rss: emptyHost };
  const head = [
    'host',
    'agents',
    'host RSS MB',
    'MB per agent (RSS − baseline) / N',
    'event loop p50 ms',
    'p99 ms',
    'host CPU % (idle)',
    'agents polling (webhook set)',
    's to add 1,000 (this step)',
    'setMyCommands calls',
    'GET /metrics ms (median)',
    'GET /stats ms (baseline)',
    'Discord gateways READY',
    'setMyCommands repeated (menu unchanged)',
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r.length > 3 ? (r[i] ?? '') : '').length)));
  const line = (r: string[]) => r.map((c, i) => (i < r.length - 1 ? c.padEnd(widths[i]!) : c)).join('  ');
  console.log(
    `\nbench:density (one agent host process, idle agents long-polling a loopback Telegram fake; the restart reuses the first start's data directory, so every menu call the first start made is recorded and none is repeated (its window ends before a paced first start has set every menu: the rest are still owed); "with WhatsApp": a fresh host whose every agent also has a WhatsApp number; "with Discord": a fresh host whose every agent also has a Discord bot, each with its own Gateway WebSocket to a loopback Discord fake)\n`,
  );
  console.log(line(head));
  for (const r of rows) console.log(line(r));
  const N = Math.max(...SIZES);
  // Issue 64: start-up linear, adding the largest N no more than 10 times adding N/10 (same host, same run).
  const startup = exact.get(`first start:${N}`);
  const smaller = exact.get(`first start:${N / 10}`);
  const startupRatio = startup?.complete && smaller?.complete ? startup.addingMs / smaller.addingMs : null;
  if (startup && smaller)
    console.log(
      startupRatio === null
        ? `\nfirst start: not every agent was polling within 60 s of being added; no start-up ratio`
        : `\nfirst start: adding ${N} agents took ${(startup.addingMs / 1000).toFixed(1)} s, adding ${N / 10} took ${(smaller.addingMs / 1000).toFixed(1)} s: ${startupRatio.toFixed(2)}× (goal ≤ 10×)`,
    );
  // Issue 64: idle host CPU at the largest N from the first start, long polling against webhooks.
  const hooked = exact.get(`webhook delivery:${N}`);
  if (startup || hooked)
    console.log(
      `\nidle host CPU with ${N} agents, first start: long polling ${startup ? `${startup.cpu.toFixed(1)} %` : 'not run'}, webhook delivery ${hooked ? `${hooked.cpu.toFixed(1)} %` : 'not run'} (goal ≤ 5 %)`,
    );
  // What a WhatsApp number adds to an idle agent: MB per agent with it, less without it (first starts, largest N).
  const perAgent = (label: Phase) => exact.get(`${label}:${N}`)?.mbPerAgent ?? Number.NaN;
  const added = perAgent('with WhatsApp') - perAgent('first start');
  if (RUN.has('with WhatsApp') && RUN.has('first start'))
    console.log(`\nWhatsApp added to each of ${N} idle agents: ${added.toFixed(3)} MB per agent (goal: at most 0.1)`);
  // Issue 59: a host of idle Discord assistants against the Telegram-only host of the same run,
  // within 2× on memory per assistant and event-loop p99. Each Discord agent here keeps its
  // Telegram bot too, so the ratio holds Discord's whole cost on top of Telegram's.
  // The Discord host's largest size this machine's open-file limit let it run.
  const ND = Math.max(...SIZES.filter(discordFits));
  const figures = (label: Phase) => {
    const e = exact.get(`${label}:${ND}`);
    return { mb: e?.mbPerAgent ?? Number.NaN, p99: e?.p99 ?? Number.NaN, cpu: e?.cpu ?? Number.NaN };
  };
  const discord = figures('with Discord');
  const telegram = figures('first start');
  if (RUN.has('with Discord') && RUN.has('first start')) {
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
    const verdict = (a: number, b: number) => (a / b <= 2 ? 'within 2×' : 'OVER 2×');
    const table = [
      ['', 'Telegram only', 'with Discord', 'ratio', 'goal ≤ 2×'],
      [
        'MB per agent',
        telegram.mb.toFixed(3),
        discord.mb.toFixed(3),
        ratio(discord.mb, telegram.mb),
        verdict(discord.mb, telegram.mb),
      ],
      [
        'event loop p99 ms',
        String(telegram.p99),
        String(discord.p99),
        ratio(discord.p99, telegram.p99),
        verdict(discord.p99, telegram.p99),
      ],
      ['host CPU % (idle)', telegram.cpu.toFixed(1), discord.cpu.toFixed(1), ratio(discord.cpu, telegram.cpu), '—'],
    ];
    const w = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
    console.log(
      `\n${ND} idle Discord assistants (each also on Telegram) next to ${ND} idle Telegram-only ones, same run:`,
    );
    for (const r of table) console.log(r.map((c, i) => c.padEnd(w[i]!)).join('  '));
    console.log(
      `Discord added to each of ${ND} idle agents: ${(discord.mb - telegram.mb).toFixed(3)} MB per agent (its Gateway WebSocket, REST client and channel state)`,
    );
  }
  console.log(
    `\nempty host ${(base.rss / MB).toFixed(1)} MB RSS (goal: at most 80 MB); same run: node alone ${(nodeAlone / MB).toFixed(1)} MB, node importing ${HOST_DEPS.join(', ')} ${(depsAlone / MB).toFixed(1)} MB`,
  );
  process.stdout.write(
    `BENCH_RESULT ${JSON.stringify({ name: 'density', head, rows, startupRatio, whatsappAddedMbPerAgent: added, discordVsTelegram: { discord, telegram }, emptyHostRss: base.rss, nodeAloneRss: nodeAlone, depsAloneRss: depsAlone })}\n`,
  );
  console.log(
    `\ngoal: at most 1 MB per idle agent, event-loop p99 under 20 ms and idle host CPU at most 5 % at N = 10,000 (also on the first start); reference: one Hermes-style agent process idles at about 550 MB`,
  );
} finally {
  await tg.stop();
  await wa.stop();
  await dc.stop();
}
