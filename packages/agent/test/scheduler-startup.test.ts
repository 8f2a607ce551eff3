// The scheduler as assistants come (issue 64): a start-up that registers assistants one after
// another reads each one's rows, not every registered assistant's rows again for each newcomer;
// a newcomer's sooner reminder still brings the one timer forward.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mock, test } from 'node:test';
import { Scheduler } from '../src/scheduler/scheduler.js';
import type { Schedule, ScheduleRepo } from '../src/storage/schedules.js';
import { SessionStore } from '../src/storage/sessions.js';
import { userData } from '../src/storage/user-data.js';
import { captureLogs } from './helpers/serve.js';

const T0 = Date.UTC(2026, 4, 1, 8, 0, 0);
const turn = () => new Promise((r) => setImmediate(r));

function rig() {
  const store = new SessionStore(mkdtempSync(join(tmpdir(), 'berth-sched-start-')));
  const repo = userData(store).schedules;
  let read = 0;
  // Counts how many assistants' rows the scheduler asked the store for.
  const counted = new Proxy(repo, {
    get(target, key, receiver) {
      if (key === 'due' || key === 'nextAfter')
        return (now: number, agents: string[], ...rest: unknown[]) => {
          read += agents.length;
          return (target[key] as (...a: unknown[]) => unknown).call(target, now, agents, ...rest);
        };
      const v = Reflect.get(target, key, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  }) as ScheduleRepo;
  const delivered: string[] = [];
  const delivery = {
    ready: () => true,
    deliver: async (s: Schedule) => {
      delivered.push(`${s.agent}:${s.text}`);
      return 'sent' as const;
    },
  };
  const scheduler = new Scheduler(counted, captureLogs().logger);
  const remind = (agent: string, text: string, nextAt: number) =>
    repo.add({
      id: `${agent}-${text}`,
      agent,
      user: 'tg:1',
      chat: '1',
      text,
      task: false,
      at: null,
      cron: null,
      timezone: null,
      nextAt,
    });
  return { store, scheduler, delivery, delivered, remind, reads: () => read };
}

test('registering 1,000 assistants one after another reads each one a few times, not all of them each time', async () => {
  const r = rig();
  try {
    for (let i = 0; i < 1000; i++) {
      r.scheduler.register(`agent-${i}`, r.delivery);
      await turn();
    }
    // Before: a pass over every registered assistant per timer turn (9,538 reads here, growing
    // with the square of the number registered).
    assert.ok(r.reads() <= 4 * 1000, `${r.reads()} assistant reads for 1,000 registrations`);
  } finally {
    r.scheduler.close();
    r.store.close();
  }
});

test("a newcomer's sooner reminder brings the timer forward; a later one does not delay another's", async () => {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: T0 });
  const r = rig();
  try {
    r.remind('a1', 'in an hour', T0 + 3_600_000);
    r.remind('a2', 'in a minute', T0 + 60_000);
    r.remind('a3', 'in a day', T0 + 86_400_000);
    r.scheduler.register('a1', r.delivery);
    mock.timers.tick(0);
    r.scheduler.register('a2', r.delivery);
    mock.timers.tick(0);
    r.scheduler.register('a3', r.delivery);
    mock.timers.tick(0);
    mock.timers.tick(60_000);
    await r.scheduler.idle();
    assert.deepEqual(r.delivered, ['a2:in a minute']);
    mock.timers.tick(3_540_000);
    await r.scheduler.idle();
    assert.deepEqual(r.delivered, ['a2:in a minute', 'a1:in an hour']);
  } finally {
    r.scheduler.close();
    r.store.close();
    mock.timers.reset();
  }
});
