// Runs the backup CronJob's own shell script (read from the rendered chart on stdin) against a
// scratch folder, with a stand-in for `node … admin backup` that writes the file or fails: the
// newest `KEEP` backups stay, older ones go, and a failed backup deletes nothing.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';

const docs = loadAll(await new Response(process.stdin).text()).filter(Boolean);
const cron = docs.find((d) => d.kind === 'CronJob');
if (!cron) throw new Error('no CronJob rendered');
const container = cron.spec.jobTemplate.spec.template.spec.containers[0];
const script = container.args[0];
const keep = Number(container.env.find((e) => e.name === 'KEEP').value);

function run({ backupFails }) {
  const dir = mkdtempSync(join(tmpdir(), 'berth-backups-'));
  const bin = mkdtempSync(join(tmpdir(), 'berth-bin-'));
  try {
    // Older backups, oldest first, a minute apart.
    const old = Array.from({ length: keep + 2 }, (_, i) => `berth-2026010${1 + Math.floor(i / 10)}T00${String(i).padStart(2, '0')}00Z.backup`);
    old.forEach((name, i) => {
      writeFileSync(join(dir, name), 'old');
      const t = new Date(Date.UTC(2026, 0, 1, 0, i)) / 1000;
      utimesSync(join(dir, name), t, t);
    });
    writeFileSync(join(dir, 'notes.txt'), 'not a backup');
    // `node packages/cli/bin/berth.js admin backup --to FILE`: its last argument is the file.
    writeFileSync(
      join(bin, 'node'),
      backupFails ? '#!/bin/sh\necho "backup failed" >&2\nexit 1\n' : '#!/bin/sh\nfor a; do f="$a"; done\necho new > "$f"\n',
    );
    chmodSync(join(bin, 'node'), 0o755);
    let status = 0;
    try {
      execFileSync('/bin/sh', ['-c', script.replaceAll('/backups', dir)], {
        env: { PATH: `${bin}:/usr/bin:/bin`, KEEP: String(keep) },
        stdio: ['ignore', 'ignore', 'ignore'],
      });
    } catch (err) {
      status = err.status;
    }
    const left = readdirSync(dir).sort();
    const fresh = left.filter((f) => f.endsWith('.backup') && readFileSync(join(dir, f), 'utf8') === 'new\n');
    return { old, status, left, fresh };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(bin, { recursive: true, force: true });
  }
}

const ok = run({ backupFails: false });
const backups = ok.left.filter((f) => f.endsWith('.backup'));
const kept = ok.old.slice(-(keep - 1));
if (ok.status !== 0) throw new Error(`the backup script failed (${ok.status})`);
if (ok.fresh.length !== 1) throw new Error('the backup just made is not among those kept');
if (backups.length !== keep) throw new Error(`kept ${backups.length} backups, wanted ${keep}: ${backups}`);
for (const f of kept) if (!backups.includes(f)) throw new Error(`a recent backup was removed: ${f}`);
if (!ok.left.includes('notes.txt')) throw new Error('a file that is not a backup was removed');
const failed = run({ backupFails: true });
if (failed.status === 0) throw new Error('a failed backup ended the job successfully');
if (failed.left.filter((f) => f.endsWith('.backup')).length !== failed.old.length)
  throw new Error('a failed backup deleted older backups');
console.log(`chart: the backup CronJob keeps the newest ${keep} backups and deletes nothing when a backup fails`);
