// "Usage this period" (DESIGN §9.3): the totals, the cost per day drawn, and the period per day, per
// model or per end user as GET …/usage?groupBy= answers it, exported as CSV. A Telegram end user
// can be blocked from here (access.blockedTelegramUserIds, a new settings version applied live).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { type Deployment, deploymentsKey } from '../../api/deployments';
import type { Settings } from '../../api/settings-draft';
import { ErrorNotice } from '../../components/ErrorNotice';
import { usd, when } from '../../components/format';
import { Options } from '../../components/Field';
import { Table } from '../../components/Table';
import { UsageChart } from './UsageChart';
import { usageCsv } from './usage-csv';

type Grouping = 'day' | 'model' | 'endUser';
const GROUPINGS: { by: Grouping; label: string; column: string }[] = [
  { by: 'day', label: 'Per day', column: 'Day' },
  { by: 'model', label: 'Per model', column: 'Model' },
  { by: 'endUser', label: 'Per end user', column: 'End user' },
];

/** "tg:42" → 42: only Telegram users can be blocked (the API's users are the caller's to gate). */
const telegramId = (key: string | null) => {
  const n = Number(/^tg:(-?\d+)$/.exec(key ?? '')?.[1]);
  return Number.isSafeInteger(n) ? n : undefined;
};

const endUserLabel = (key: string | null) => {
  if (key === null) return 'unknown';
  const tg = telegramId(key);
  if (tg !== undefined) return `Telegram user ${tg}`;
  return key.startsWith('api:') ? `API user "${key.slice(4)}"` : key;
};

export function UsageCard({ d }: { d: Deployment }) {
  const [by, setBy] = useState<Grouping>('day');
  const selectId = useId();
  const usage = useQuery({
    queryKey: [...deploymentsKey(), d.id, 'usage', by],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/assistants/{deploymentId}/usage', {
          params: { path: { deploymentId: d.id }, query: { groupBy: by } },
        }),
      ),
    refetchInterval: 10_000,
    enabled: d.paymentStatus !== 'pending',
  });
  const u = usage.data;
  const groups = u?.groups ?? [];
  const column = GROUPINGS.find((g) => g.by === by)!.column;
  const csvHref = u ? `data:text/csv;charset=utf-8,${encodeURIComponent(usageCsv(by, groups))}` : undefined;
  return (
    <section aria-labelledby="usage-title" className="card">
      <h2 id="usage-title">Usage this period</h2>
      {d.paymentStatus === 'pending' && <p className="muted">Usage starts once the slot is paid.</p>}
      <ErrorNotice error={usage.error} />
      {u && (
        <>
          <dl className="record">
            <dt>Period</dt>
            <dd>
              {when(u.period.start)} – {when(u.period.end)}
            </dd>
            <dt>Allowance</dt>
            <dd>{usd(u.allowanceUsd)}</dd>
            <dt>Used</dt>
            <dd>{usd(u.usedUsd)}</dd>
            <dt>Remaining</dt>
            <dd>{usd(u.remainingUsd)}</dd>
            <dt>Replies</dt>
            <dd>{u.replies}</dd>
            <dt>Tokens</dt>
            <dd>
              {u.promptTokens} in, {u.completionTokens} out
            </dd>
          </dl>
          {u.allowanceUsd !== null && (
            <meter min={0} max={u.allowanceUsd} value={u.usedUsd} aria-label="Share of the allowance used" />
          )}
          <UsageChart days={u.daily} />
          <div className="row wrap">
            <div className="field">
              <label htmlFor={selectId}>Break down</label>
              <select id={selectId} value={by} onChange={(e) => setBy(e.target.value as Grouping)}>
                <Options items={GROUPINGS} value={(g) => g.by} label={(g) => g.label} />
              </select>
            </div>
            <a className="button secondary" href={csvHref} download={`usage-${d.id.slice(0, 8)}-${by}.csv`}>
              Export CSV
            </a>
          </div>
          {groups.length ? (
            <Table
              caption={`Usage ${GROUPINGS.find((g) => g.by === by)!.label.toLowerCase()}`}
              columns={[column, 'Replies', 'Tokens in', 'Tokens out', 'Cost']}
              actions={by === 'endUser'}
            >
              {groups.map((g) => (
                <tr key={g.key ?? 'unknown'}>
                  <td className={by === 'day' ? undefined : 'mono'}>
                    {by === 'endUser' ? endUserLabel(g.key) : (g.key ?? 'unknown')}
                  </td>
                  <td>{g.replies}</td>
                  <td>{g.promptTokens}</td>
                  <td>{g.completionTokens}</td>
                  <td>{usd(g.costUsd)}</td>
                  {by === 'endUser' && (
                    <td>{telegramId(g.key) !== undefined && <BlockButton d={d} userId={telegramId(g.key)!} />}</td>
                  )}
                </tr>
              ))}
            </Table>
          ) : (
            <p className="muted">Nothing to break down yet.</p>
          )}
        </>
      )}
    </section>
  );
}

/** Adds or removes one Telegram user in access.blockedTelegramUserIds of the newest settings. */
function BlockButton({ d, userId }: { d: Deployment; userId: number }) {
  const qc = useQueryClient();
  const key = [...deploymentsKey(), d.id, 'settings'];
  const path = { params: { path: { deploymentId: d.id } } };
  const current = useQuery({
    queryKey: [...key, 'current'],
    queryFn: () => unwrap(api.GET('/api/v1/assistants/{deploymentId}/settings', path)),
  });
  const blocked = current.data?.access.blockedTelegramUserIds?.includes(userId) ?? false;
  const toggle = useMutation({
    mutationFn: async () => {
      // Read the newest version right before writing, so an edit made meanwhile is not undone.
      const {
        version: _v,
        updatedAt: _u,
        ...doc
      } = await unwrap(api.GET('/api/v1/assistants/{deploymentId}/settings', path));
      const list = doc.access.blockedTelegramUserIds ?? [];
      const next: Settings = {
        ...doc,
        access: {
          ...doc.access,
          blockedTelegramUserIds: blocked ? list.filter((u) => u !== userId) : [...new Set([...list, userId])],
        },
      };
      return unwrap(api.PUT('/api/v1/assistants/{deploymentId}/settings', { ...path, body: next }));
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: key }),
  });
  return (
    <>
      <button
        type="button"
        className={blocked ? 'secondary' : 'danger'}
        onClick={() => toggle.mutate()}
        disabled={toggle.isPending}
      >
        {blocked ? `Unblock ${userId}` : `Block ${userId}`}
      </button>
      <ErrorNotice error={toggle.error} />
    </>
  );
}
