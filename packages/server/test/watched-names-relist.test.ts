// The watched set of dedicated workers' names (watched-names.ts) against an API whose lists and
// watches the test scripts, for what the fake API server cannot time: this replica's own writes
// landing in the middle of a relist's sliced merge, and a watch that keeps failing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { until } from './helpers/until.js';
import { WatchedNames } from '../src/workers/kubernetes/watched-names.js';
import type { KubeApi } from '../src/workers/kubernetes/api.js';
import { WORKER } from '../src/workers/kubernetes/manifests/labels.js';

type Item = { metadata: { labels: Record<string, string> } };
const item = (name: string): Item => ({ metadata: { labels: { [WORKER]: name } } });

/** A watch that streams nothing until it is stopped. */
async function quietWatch(_v: string, _p: string, _s: string, _rv: string, _on: unknown, signal: AbortSignal) {
  await new Promise<void>((ok) => signal.addEventListener('abort', () => ok(), { once: true }));
}

/** Lists answer from `lists[plural]` in turn (the last one again); watches from `watches[plural]`. */
function scriptedApi(
  lists: Record<string, Item[][]>,
  watches: Record<string, Array<'fail' | 'hang'>>,
  seen: { lists: Record<string, number>; watches: Record<string, number> },
) {
  return {
    async listMetadataPage(_v: string, plural: string) {
      const n = (seen.lists[plural] = (seen.lists[plural] ?? 0) + 1);
      const all = lists[plural]!;
      return { items: all[Math.min(n, all.length) - 1]!, resourceVersion: String(n) };
    },
    async watchMetadata(_v: string, plural: string, _s: string, _rv: string, _on: unknown, signal: AbortSignal) {
      const n = (seen.watches[plural] = (seen.watches[plural] ?? 0) + 1);
      const all = watches[plural]!;
      if (all[Math.min(n, all.length) - 1] === 'fail') throw new Error('the watch broke');
      await new Promise<void>((ok) => signal.addEventListener('abort', () => ok(), { once: true }));
    },
  } as unknown as KubeApi;
}

test('a worker this replica removes while a relist merges its pages is gone from the set, not kept as a name no event can remove', async () => {
  const N = 200_000;
  const names = Array.from({ length: N }, (_, i) => `asst-${String(i).padStart(8, '0')}`);
  const seen = { lists: {} as Record<string, number>, watches: {} as Record<string, number> };
  // Deployments: every worker, then (the watch broke) none of them; no Services.
  const api = scriptedApi(
    { deployments: [names.map(item), []], services: [[]] },
    { deployments: ['fail', 'hang'], services: ['hang'] },
    seen,
  );
  const w = new WatchedNames(api, { backoffMs: 1 });
  try {
    // Starts the watches (it resolves once the first list is in).
    void w.current();
    // Once the second relist's merge has begun removing names (it yields every few ms), the
    // control plane stops every worker left: each of its writes lands in a pause of the merge,
    // the first on the entry the merge holds.
    await until(
      "the second relist's merge to start removing",
      () => {
        const live = (w as unknown as { names: { size: number } }).names;
        if ((seen.lists.deployments ?? 0) < 2 || live.size === 0 || live.size >= N) return undefined;
        for (const n of names) w.wrote(n, false);
        return true;
      },
      15_000,
      0,
    );
    const after = await until('the set back in use', () => w.current());
    assert.deepEqual(after.names, [], 'every worker was removed: none is left in the set');
  } finally {
    w.close();
  }
});

test('a watch that keeps failing retries without adding a listener to the set per retry', async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
  process.on('warning', onWarning);
  const seen = { lists: {} as Record<string, number>, watches: {} as Record<string, number> };
  // A Role without watch: every watch is refused, every list answers.
  const api = scriptedApi(
    { deployments: [[item('asst-a')]], services: [[]] },
    { deployments: ['fail'], services: ['hang'] },
    seen,
  );
  const w = new WatchedNames(api, { backoffMs: 1 });
  try {
    void w.current();
    // 1, 2, 4 … 512 ms: the 12th retry comes ~2 s in.
    await until('twelve refused watches', () => (seen.watches.deployments ?? 0) >= 12 || undefined, 20_000, 20);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(
      warnings.filter((m) => m.includes('MaxListeners')),
      [],
      'no listener leak warning',
    );
    assert.equal(await w.current(), undefined, 'a set whose watch is refused is not used');
  } finally {
    w.close();
    process.off('warning', onWarning);
  }
});

test('the names of a set of 200,000 are handed out without holding the event loop (a walk after every change takes them)', async () => {
  const N = 200_000;
  const names = Array.from({ length: N }, (_, i) => `asst-${String(i).padStart(8, '0')}`);
  const seen = { lists: {} as Record<string, number>, watches: {} as Record<string, number> };
  const api = scriptedApi(
    { deployments: [names.map(item)], services: [[]] },
    { deployments: ['hang'], services: ['hang'] },
    seen,
  );
  const w = new WatchedNames(api, { backoffMs: 1 });
  try {
    // The first walk waits for the set's first list (no list of its own), then is answered from it.
    const first = await w.current();
    assert.equal(first?.names.length, N);
    assert.equal(seen.lists.deployments, 1, "one list: the set's own");
    // A change (an event, this replica's write): the next walk takes the names afresh. Copied in
    // one step that held the loop 11–23 ms at 100,000; now other work runs in between.
    w.wrote('asst-new', true);
    let turns = 0;
    let counting = true;
    const count = () => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const next = await w.current();
    counting = false;
    assert.equal(next?.names.length, N + 1);
    assert.ok(next!.generation > first!.generation);
    assert.ok(turns > 1, `the event loop turned while the names were taken (${turns} turns)`);
  } finally {
    w.close();
  }
});

test("a walk does not wait for one kind's list while another kind waits out a failure: it lists the API server itself at once", async () => {
  const said: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  // Deployments: a list that takes its time; Services: refused (a Role without list on them).
  const api = {
    async listMetadataPage(_v: string, plural: string) {
      if (plural === 'services') throw new Error('services is forbidden');
      await gate;
      return { items: [item('asst-a')], resourceVersion: '1' };
    },
    watchMetadata: quietWatch,
  } as unknown as KubeApi;
  const w = new WatchedNames(api, { backoffMs: 30_000, log: { warn: (o) => said.push((o as { kind: string }).kind) } });
  try {
    void w.current();
    await until('the refused list to be said', () => said.includes('services') || undefined);
    const answer = await Promise.race([
      w.current().then((v) => ({ v })),
      // Still waiting after 3 s on the wall clock is the answer this test expects: nothing to wait on.
      new Promise<'waited'>((r) => setTimeout(() => r('waited'), 3000)),
    ]);
    assert.notEqual(answer, 'waited', 'answered at once, not after the backoff or the other list');
    assert.equal((answer as { v: unknown }).v, undefined, 'not from the set: the walk lists the API server');
  } finally {
    release();
    w.close();
  }
});

test("a list that a close cut short does not take the set started since out of its wait (the new set's list is still under way)", async () => {
  const gates: Array<() => void> = [];
  let lists = 0;
  // Deployments: each list waits for its own gate; Services: listed at once.
  const api = {
    async listMetadataPage(_v: string, plural: string) {
      if (plural === 'deployments') {
        lists++;
        await new Promise<void>((r) => gates.push(r));
      }
      return { items: [item('asst-a')], resourceVersion: '1' };
    },
    watchMetadata: quietWatch,
  } as unknown as KubeApi;
  const w = new WatchedNames(api, { backoffMs: 1 });
  try {
    void w.current();
    await until('the first list to begin', () => lists === 1 || undefined);
    // Closed (idle, or the backend closing) and asked again: a second list begins.
    w.close();
    void w.current();
    await until('the second list to begin', () => lists === 2 || undefined);
    // The first list comes back late: its end must not clear the second list's mark.
    gates[0]!();
    await new Promise((r) => setTimeout(r, 50));
    // A walk now waits for the list under way (cleared, it was answered at once: undefined, and
    // it listed the API server itself beside the set's list).
    let answered = false;
    const walk = w.current().then((set) => {
      answered = true;
      return set;
    });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(answered, false, 'the walk waits for the list under way');
    gates[1]!();
    assert.deepEqual((await walk)?.names, ['asst-a'], 'answered from the set once its list ended');
  } finally {
    for (const g of gates) g();
    w.close();
  }
});

test('a first list longer than the idle time does not close the set under the walk waiting for it', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let lists = 0;
  const api = {
    async listMetadataPage(_v: string, plural: string) {
      lists++;
      if (plural === 'deployments') await gate;
      return { items: [item('asst-a')], resourceVersion: '1' };
    },
    watchMetadata: quietWatch,
  } as unknown as KubeApi;
  // Idle after 100 ms (checked every 50 ms); the walk waits up to 5 s for the lists.
  const w = new WatchedNames(api, { backoffMs: 1, idleMs: 100, waitMs: 5000 });
  try {
    const walk = w.current();
    // The Deployments list takes four idle periods.
    await new Promise((r) => setTimeout(r, 400));
    release();
    assert.deepEqual((await walk)?.names, ['asst-a'], 'answered from the set its wait was for');
    assert.equal(lists, 2, 'one list a kind: the set was not closed and listed again');
  } finally {
    release();
    w.close();
  }
});

test("a relist that fails half way leaves nothing the next one does not list: a name only the failed list's first page had is not in the set", async () => {
  // Deployments: the first list's second page fails after its first page named a, b and c; the
  // list after the backoff names a and c. Services name a and d throughout.
  let deploymentLists = 0;
  const api = {
    async listMetadataPage(_v: string, plural: string, _s: string, page: { continue?: string }) {
      if (plural === 'services') return { items: [item('asst-a'), item('asst-d')], resourceVersion: '7' };
      if (page.continue === undefined) deploymentLists++;
      if (deploymentLists === 1) {
        if (page.continue === undefined)
          return { items: [item('asst-a'), item('asst-b'), item('asst-c')], continue: 'next', resourceVersion: '5' };
        throw new Error('the API server went away mid-list');
      }
      return { items: [item('asst-a'), item('asst-c')], resourceVersion: '9' };
    },
    watchMetadata: quietWatch,
  } as unknown as KubeApi;
  const w = new WatchedNames(api, { backoffMs: 1 });
  try {
    void w.current();
    const current = await until('the set in use after the second list', () =>
      deploymentLists >= 2 ? w.current() : undefined,
    );
    assert.deepEqual([...current.names].sort(), ['asst-a', 'asst-c', 'asst-d']);
  } finally {
    w.close();
  }
});

test('the relist comes when it is due while the watch runs, even when the collector runs meanwhile (issue 57 R9)', async () => {
  // The runner starts node without --expose-gc; the flag can still be set before the first use.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const seen = { lists: {} as Record<string, number>, watches: {} as Record<string, number> };
  const api = scriptedApi(
    { deployments: [[item('asst-a')]], services: [[]] },
    { deployments: ['hang'], services: ['hang'] },
    seen,
  );
  const watch = api.watchMetadata.bind(api);
  // Each watch, once under way, runs the collector: a deadline held only weakly would go with it.
  api.watchMetadata = (...args: Parameters<KubeApi['watchMetadata']>) => {
    setImmediate(() => {
      gc();
      gc();
    });
    return watch(...args);
  };
  const w = new WatchedNames(api, { relistMs: 300 });
  try {
    void w.current();
    await until('a relist after the first watch', () => ((seen.lists.deployments ?? 0) >= 2 ? true : undefined), 5_000);
  } finally {
    w.close();
  }
});
