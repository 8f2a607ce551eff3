// While an assistant deploys: the steps it has passed (Paid → Creating the worker → Waiting for
// Telegram → Active) and a ticking elapsed time; the worker's own words for what it waits on are
// the live status message the page shows above.
// A failed deploy says what to do next (decision 0028, "Deploy progress").
import { useEffect, useState } from 'react';
import type { Deployment } from '../api/deployments';

/** The deploy job's first message (activate and redeploy write it); later ones say what it waits for. */
const CREATING = /^deploying the worker/i;

const startKey = (id: string) => `berth.deploy-started.${id}`;

/**
 * When this deploy began: the record's updatedAt as first seen while deploying, kept for the tab so
 * a reload or a later progress message (which moves updatedAt) does not restart the clock.
 */
function deployStart(d: Deployment): number {
  const kept = Number(sessionStorage.getItem(startKey(d.id)));
  if (kept) return kept;
  const start = Date.parse(d.updatedAt);
  sessionStorage.setItem(startKey(d.id), String(start));
  return start;
}

/** "42 s", "2 min 05 s". */
export function elapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/** What a person can do about a failed deploy, from the reason the server gave. */
function nextSteps(message: string | null, id: string): string {
  const why = message ?? '';
  if (/telegram|bot token|getme/i.test(why))
    return `Check the bot token with @BotFather and that this server can reach Telegram. Then press Update settings to give a new token, or Redeploy; from a terminal: berth assistants redeploy ${id}.`;
  if (/not ready within|deadline/i.test(why))
    return `The worker did not start in time. Press Redeploy; if it fails again, the server's log has the cause (berth status ${id} --watch follows the next attempt).`;
  return `Press Redeploy to try again, or Update settings to change the model or token; from a terminal: berth assistants redeploy ${id}.`;
}

export function DeployProgress({ d }: { d: Deployment }) {
  const deploying = d.status === 'deploying';
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!deploying) {
      sessionStorage.removeItem(startKey(d.id));
      return;
    }
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [deploying, d.id]);

  if (d.status === 'failed') {
    return (
      <section aria-labelledby="deploy-title" className="card">
        <h2 id="deploy-title">The deploy failed</h2>
        <p>
          <strong>What to do next:</strong> {nextSteps(d.statusMessage, d.id)}
        </p>
      </section>
    );
  }
  if (!deploying) return null;
  const creating = !d.statusMessage || CREATING.test(d.statusMessage);
  const waitingFor = d.channelType === 'telegram' ? 'Waiting for Telegram' : 'Waiting for the worker';
  const steps = [
    { label: 'Paid', state: 'done' },
    { label: 'Creating the worker', state: creating ? 'current' : 'done' },
    { label: waitingFor, state: creating ? 'todo' : 'current' },
    { label: 'Active', state: 'todo' },
  ];
  return (
    <section aria-labelledby="deploy-title" className="card">
      <h2 id="deploy-title">Deploying</h2>
      <ol className="steps" aria-label="Deploy steps">
        {steps.map((s) => (
          <li key={s.label} className={s.state} aria-current={s.state === 'current' ? 'step' : undefined}>
            {s.state === 'current' ? <strong>{s.label}</strong> : s.label}
          </li>
        ))}
      </ol>
      <p className="muted" data-testid="deploy-elapsed">
        Elapsed: {elapsed(now - deployStart(d))}
      </p>
    </section>
  );
}
