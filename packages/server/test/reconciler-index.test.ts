// The reconciler's desired-state index (issue 30): a full read and a changed-rows read update the
// entries they find in place (no new object per row for the collector to copy: its pauses fell
// inside the pass's slices at 100,000 deployments) and a full read drops what it did not find.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DesiredIndex } from '../src/reconciler/desired-index.js';
import type { DesiredRow } from '../src/platform/store/deployments.js';

const id = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
const row = (i: number, over: Partial<DesiredRow> = {}): DesiredRow => ({
  id: id(i),
  workerName: `asst-${id(i)}`,
  status: 'active',
  desired: 'running',
  generation: 1,
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...over,
});

/** A store of `rows` (by id) that pages like DeploymentRepo. */
function repo(rows: () => DesiredRow[]) {
  return {
    async pageWantingWorkers(after: string, limit: number) {
      return (
        rows()
          .filter((r) => r.desired === 'running' && r.id > after)
          .sort((a, b) => (a.id < b.id ? -1 : 1))
          .slice(0, limit)
          // The columns the store reads for this page, no more (a read of another would be undefined).
          .map(({ id, workerName, status, generation }) => ({ id, workerName, status, generation }))
      );
    },
    async pageChangedSince(after: { updatedAt: string; id: string }, limit: number) {
      return rows()
        .filter((r) => r.updatedAt > after.updatedAt || (r.updatedAt === after.updatedAt && r.id > after.id))
        .sort((a, b) => (a.updatedAt < b.updatedAt || (a.updatedAt === b.updatedAt && a.id < b.id) ? -1 : 1))
        .slice(0, limit);
    },
  };
}

test('a full read over several pages keeps the entries it finds (updated, in place) and drops the rest', async () => {
  // More than one page of the index's reads (250).
  let rows = Array.from({ length: 600 }, (_, i) => row(i));
  const store = repo(() => rows);
  const index = new DesiredIndex();
  assert.equal(await index.refresh(store, new Date(), true), 600);
  const kept = index.wanted.get(`asst-${id(7)}`)!;
  kept.seen = 3;
  rows = rows
    .filter((_, i) => i !== 5 && i !== 599)
    .map((r) =>
      r.id === id(7)
        ? row(7, { status: 'deploying', generation: 2 })
        : // Named apart from its id: the entry keeps the id.
          r.id === id(9)
          ? row(9, { workerName: 'asst-renamed' })
          : r,
    );
  assert.equal(await index.refresh(store, new Date(), true), 598);
  assert.equal(index.wanted.size, 598);
  assert.ok(!index.wanted.has(`asst-${id(9)}`), 'a renamed worker is dropped under its old name');
  assert.ok(!index.wanted.has(`asst-${id(5)}`), 'a row gone is dropped');
  assert.ok(!index.wanted.has(`asst-${id(599)}`), 'on the last page too');
  const now = index.wanted.get(`asst-${id(7)}`)!;
  assert.equal(now, kept, 'the same entry, updated in place');
  assert.deepEqual(
    { status: now.status, generation: now.generation, seen: now.seen },
    {
      status: 'deploying',
      generation: 2,
      seen: 3,
    },
  );
  assert.equal(index.wanted.get('asst-renamed')!.id, id(9));
});

test('a changed-rows read updates in place and drops a deployment that stopped wanting a worker', async () => {
  let rows = [row(1), row(2)];
  const store = repo(() => rows);
  const index = new DesiredIndex();
  await index.refresh(store, new Date('2026-01-01T00:00:10.000Z'), true);
  const one = index.wanted.get(`asst-${id(1)}`)!;
  const later = '2026-01-01T00:00:20.000Z';
  rows = [
    row(1, { generation: 5, updatedAt: later }),
    row(2, { desired: 'stopped', updatedAt: later }),
    row(3, { updatedAt: later }),
  ];
  assert.equal(await index.refresh(store, new Date('2026-01-01T00:00:20.000Z')), 3);
  assert.equal(index.wanted.get(`asst-${id(1)}`), one);
  assert.equal(one.generation, 5);
  assert.ok(!index.wanted.has(`asst-${id(2)}`));
  assert.ok(index.wanted.has(`asst-${id(3)}`));
});
