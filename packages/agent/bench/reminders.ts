// bench:reminders — (1) REMINDERS pending reminders (default 10,000) in one real agent host, one
// timer for all: delivery lag at due time (p50/p99/max, measured where FakeTelegram receives them)
// and the host's RSS next to an idle host with the same assistants and no reminders, from the
// same run. (2) What memory and the rolling summary add to each model call: prompt bytes and p50
// latency per call against a loopback model, next to the same call without them.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { request } from 'undici';
import { FakeModelProvider, FakeTelegram } from '@berth/testkit';
import { spawnHost } from './spawn-host.js';
import { SessionStore } from '../src/storage/sessions.js';
import { ScheduleRepo } from '../src/storage/schedules.js';
import { userData } from '../src/storage/user-data.js';
import { Assistant } from '../src/runtime/assistant.js';
import { agentLogger } from '../src/logger.js';
import { MEMORY_BLOCK_CHARS } from '../src/storage/memory.js';
import { Scheduler } from '../src/scheduler/scheduler.js';

const REMINDERS = Number(process.env.REMINDERS ?? 10_000);
const PER_ASSISTANT = 50; // the cap per assistant (DESIGN §7.4)
const ASSISTANTS = Math.ceil(REMINDERS / PER_ASSISTANT);
const SPREAD_MS = Number(process.env.REMINDERS_SPREAD_MS ?? 10_000);
const CALLS = Number(process.env.PROMPT_CALLS ?? 200);
const ADMIN = 'bench-admin-token-0123456789abcdef';
/** Busy processes spinning beside the hosts while reminders fall due: a shared machine, on purpose. */
const BUSY = Number(process.env.REMINDERS_BUSY ?? 0);
const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rss = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;
/** CPU seconds (user + system) the process has used so far. */
const cpu = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};
const tokenFor = (host: number, i: number) =>
  `${8100000000 + host * 100_000 + i}:AAremindBenchFakeToken_${String(i).padStart(12, '0')}`;

async function startHost(tg: FakeTelegram, hostNo: number, dataDir: string) {
  const { child, url } = await spawnHost({
    ADMIN_TOKEN: ADMIN,
    DATA_DIR: dataDir,
    TELEGRAM_API_ROOT: tg.url,
    LOG_LEVEL: 'warn',
  });
  for (let i = 0; i < ASSISTANTS; i++) {
    const token = tokenFor(hostNo, i);
    tg.addBot(token);
    const res = await request(`${url}/agents/a${i}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        gatewayToken: `gateway-bench-${i}-0123456789`,
        model: { provider: 'fakeai', baseUrl: 'http://127.0.0.1:9/v1', modelId: 'm', apiKey: 'sk-unused' },
        telegram: { botToken: token },
      }),
    });
    await res.body.dump();
  }
  return { child, url };
}

async function part1() {
  const tg = await new FakeTelegram().start();
  const received = new Map<string, number>();
  const push = tg.sent.push.bind(tg.sent);
  tg.sent.push = (...msgs) => {
    const now = Date.now();
    for (const m of msgs) received.set(m.text, now);
    return push(...msgs);
  };
  const idleDir = mkdtempSync(join(tmpdir(), 'berth-rem-idle-'));
  const busyDir = mkdtempSync(join(tmpdir(), 'berth-rem-busy-'));
  // The reminders are written before the host starts, as they would be after a restart.
  const firstDue = Date.now() + 60_000 + ASSISTANTS * 50;
  const due = new Map<string, number>();
  {
    const store = new SessionStore(busyDir);
    const repo = new ScheduleRepo(store.db);
    store.db.transaction(() => {
      for (let n = 0; n < REMINDERS; n++) {
        const agent = `a${n % ASSISTANTS}`;
        const at = firstDue + Math.floor((n / REMINDERS) * SPREAD_MS);
        const chat = 1_000_000 + n;
        repo.add({
          id: n.toString(16).padStart(8, '0'),
          agent,
          user: `tg:${chat}`,
          chat: `telegram:${chat}`,
          text: `r${n}`,
          task: false,
          at: new Date(at).toISOString(),
          cron: null,
          timezone: null,
          nextAt: at,
        });
        due.set(`⏰ r${n}`, at);
      }
    })();
    store.close();
  }
  const busyLoops: ReturnType<typeof spawn>[] = [];
  const idle = await startHost(tg, 1, idleDir);
  const busy = await startHost(tg, 2, busyDir);
  try {
    const wait = firstDue - Date.now() - 5000;
    if (wait < 0) throw new Error('the hosts took too long to start; lower REMINDERS');
    await sleep(wait);
    for (let i = 0; i < BUSY; i++) busyLoops.push(spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
    const pending = { idle: rss(idle.child.pid!), busy: rss(busy.child.pid!) };
    const cpu0 = { idle: cpu(idle.child.pid!), busy: cpu(busy.child.pid!) };
    const deadline = firstDue + SPREAD_MS + 60_000;
    while (received.size < REMINDERS && Date.now() < deadline) await sleep(250);
    const after = { idle: rss(idle.child.pid!), busy: rss(busy.child.pid!) };
    const cpuUsed = { idle: cpu(idle.child.pid!) - cpu0.idle, busy: cpu(busy.child.pid!) - cpu0.busy };
    const lags = [...due].filter(([t]) => received.has(t)).map(([t, at]) => received.get(t)! - at);
    const dupes = tg.sent.length - received.size;
    console.log(
      `\n## ${REMINDERS} reminders in one host (${ASSISTANTS} assistants × ${PER_ASSISTANT}), due over ${SPREAD_MS / 1000} s`,
    );
    // Possible at all within Telegram's limits (30 messages a second per bot, 1 a second per chat)?
    const perBot = Math.ceil(REMINDERS / ASSISTANTS / (SPREAD_MS / 1000));
    console.log(
      `load: ${Math.round(REMINDERS / (SPREAD_MS / 1000))} due a second over ${ASSISTANTS} bots = ${perBot} a second per bot (Telegram allows 30), each to its own chat (1 a second allowed)${BUSY ? `; ${BUSY} busy processes spinning beside the hosts` : ''}`,
    );
    console.log(`delivered: ${received.size}/${REMINDERS}, duplicates: ${dupes}`);
    console.log(
      `delivery lag at due time: p50 ${pct(lags, 50)} ms, p99 ${pct(lags, 99)} ms, max ${Math.max(...lags)} ms`,
    );
    console.log('| host | RSS, reminders pending | RSS, after delivery | CPU while they fell due |');
    console.log('| --- | --- | --- | --- |');
    console.log(
      `| idle (same ${ASSISTANTS} assistants, no reminders) | ${(pending.idle / MB).toFixed(1)} MB | ${(after.idle / MB).toFixed(1)} MB | ${cpuUsed.idle.toFixed(2)} s |`,
    );
    console.log(
      `| ${REMINDERS} reminders | ${(pending.busy / MB).toFixed(1)} MB | ${(after.busy / MB).toFixed(1)} MB | ${cpuUsed.busy.toFixed(2)} s (${(((cpuUsed.busy - cpuUsed.idle) * 1e6) / Math.max(1, received.size)).toFixed(0)} µs per delivery) |`,
    );
  } finally {
    for (const b of busyLoops) b.kill('SIGKILL');
    idle.child.kill('SIGTERM');
    busy.child.kill('SIGTERM');
    await sleep(500);
    await tg.stop();
    rmSync(idleDir, { recursive: true, force: true });
    rmSync(busyDir, { recursive: true, force: true });
  }
}

async function part2() {
  const provider = await new FakeModelProvider().start();
  const dir = mkdtempSync(join(tmpdir(), 'berth-rem-prompt-'));
  const store = new SessionStore(dir);
  const log = agentLogger('warn');
  const a = new Assistant(
    {
      name: 'p',
      gatewayToken: 'gateway-bench-0123456789',
      model: { provider: 'fakeai', baseUrl: provider.url, modelId: 'm', apiKey: 'sk-test-model-key-0123456789abcdef' },
      historyBudgetChars: 200_000,
    },
    store,
    log,
    undefined,
    { scheduler: new Scheduler(new ScheduleRepo(store.db), log) },
  );
  const mem = userData(store).memory;
  // A full memory block: facts until the next one would archive the oldest.
  for (let i = 0; (mem.block('p', 'tg:2')?.length ?? 0) < MEMORY_BLOCK_CHARS - 120; i++)
    mem.remember('p', 'tg:2', `Fact ${i}: the user prefers tea over coffee in the afternoon, mostly green.`);
  for (let i = 0; (mem.block('p', 'tg:3')?.length ?? 0) < MEMORY_BLOCK_CHARS - 120; i++)
    mem.remember('p', 'tg:3', `Fact ${i}: the user prefers tea over coffee in the afternoon, mostly green.`);
  const cases = [
    { name: 'warm-up (not shown)', user: undefined, chat: 9 },
    { name: 'no end user (baseline)', user: undefined, chat: 1 },
    { name: 'end user, empty memory (+ memory and reminder tool definitions)', user: '1', chat: 1 },
    { name: `end user, full memory block (≤ ${MEMORY_BLOCK_CHARS} chars)`, user: '2', chat: 2 },
    { name: 'full memory + a 1,200-char running summary', user: '3', chat: 3 },
  ];
  const rows: string[] = [];
  let base: { bytes: number; p50: number } | undefined;
  for (const c of cases) {
    const times: number[] = [];
    const bytes: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      if (c.chat === 3) store.fold('p', `telegram:3:${i}`, 0, 'S'.repeat(1200));
      const t0 = performance.now();
      const before = provider.requests.length;
      for await (const ev of a.conversation.respond(
        {
          chat: { id: String(c.chat), type: 'private' },
          ...(c.user ? { sender: { id: c.user } } : {}),
          session: `telegram:${c.chat}:${i}`,
          text: 'hello there',
          mentioned: true,
        },
        AbortSignal.timeout(10_000),
      ))
        if (ev.type === 'error') throw ev.error;
      times.push(performance.now() - t0);
      bytes.push(Buffer.byteLength(JSON.stringify(provider.requests[before]!.body)));
      provider.requests.length = 0;
    }
    const row = { bytes: pct(bytes, 50), p50: pct(times, 50) };
    if (c.chat === 9) continue;
    base ??= row;
    rows.push(
      `| ${c.name} | ${row.bytes} | +${row.bytes - base.bytes} | ${row.p50.toFixed(2)} ms | +${(row.p50 - base.p50).toFixed(2)} ms |`,
    );
  }
  console.log(`\n## What memory and the summary add to each model call (${CALLS} calls each, loopback model)`);
  console.log('| call | prompt bytes | added | p50 latency | added |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const r of rows) console.log(r);
  await a.stop();
  store.close();
  await provider.stop();
  rmSync(dir, { recursive: true, force: true });
}

if (process.env.BENCH_PART !== '1') await part2();
if (process.env.BENCH_PART !== '2') await part1();
process.exit(0);
