// The operator's commands of DESIGN §7.5: backup, restore, migrate --status (and, beside them,
// the operator's view and hand). Each calls a verb of the server's admin/ module.
import { err, io, out } from '../io.js';
import { admin, loadConfig } from '@berth/server';
import { status } from '../status.js';
import type { AdminOptions } from './admin-options.js';

const need = (v: string | undefined, flag: string, command: string) => {
  if (!v) throw new Error(`admin ${command} needs ${flag}; see: npx berth --help`);
  return v;
};

export async function operatorCommand(command: string, opts: AdminOptions): Promise<number> {
  const config = loadConfig(io().env);
  switch (command) {
    case 'backup': {
      const to = need(opts.to, '--to FILE', command);
      const done = status(`Backing up ${config.databaseUrl ? 'PostgreSQL' : config.dataDir}`);
      const res = await admin.backup(config, to).finally(done);
      err(
        `Backup written: ${res.file} (${res.bytes} bytes; ${res.manifest.entries.length} entries, ${res.manifest.migrations.length} migrations). Keep BACKUP_PASSPHRASE: without it the file cannot be opened.`,
      );
      out(res.file);
      return 0;
    }
    case 'restore': {
      const from = need(opts.from, '--from FILE', command);
      const done = status(`Restoring ${from} into ${config.databaseUrl ? 'PostgreSQL' : config.dataDir}`);
      const res = await admin.restore(config, from).finally(done);
      err(
        `Restored the backup of ${res.manifest.createdAt} (version ${res.manifest.version}); the key opened all ${res.secretsOpened} stored secrets. Start the server.`,
      );
      return 0;
    }
    case 'migrate': {
      if (!opts.status)
        throw new Error('admin migrate takes --status (migrations run when the server starts, after a backup)');
      const res = await admin.migrateStatus(config);
      if (opts.json) out(JSON.stringify(res, null, 2));
      else {
        for (const m of res.applied) out(`applied  ${m.name}  ${m.appliedAt}`);
        for (const m of res.pending) out(`pending  ${m}`);
        err(`${res.applied.length} applied, ${res.pending.length} pending`);
      }
      return 0;
    }
    case 'deployments': {
      const [verb, id] = opts.positionals ?? [];
      return admin.withStore(config, async (store) => {
        const d = admin.operatorDeps(store, config);
        if (verb === 'list') {
          const rows = await admin.listDeploymentsForOperator(
            d,
            opts.status === undefined ? undefined : String(opts.status),
          );
          if (opts.json) out(JSON.stringify(rows, null, 2));
          else
            for (const r of rows)
              out(
                `${r.id}  ${r.status.padEnd(9)}  ${r.apiMode.padEnd(9)}  ${r.ownerEmail}  ${r.name}${r.suspendedReason ? `  [suspended: ${r.suspendedReason}]` : ''}`,
              );
          err(`${rows.length} deployment(s)`);
          return 0;
        }
        if (verb === 'suspend' || verb === 'resume') {
          const target = need(id, 'a deployment ID', `deployments ${verb}`);
          const saved =
            verb === 'suspend'
              ? await admin.suspendDeployment(d, target, need(opts.reason, '--reason R', 'deployments suspend'))
              : await admin.resumeDeployment(d, target);
          out(`${saved.id}: ${saved.status}${saved.statusMessage ? ` (${saved.statusMessage})` : ''}`);
          err(
            verb === 'suspend'
              ? 'The running server stops its worker at its next reconcile pass.'
              : 'The suspension is lifted.',
          );
          return 0;
        }
        throw new Error('admin deployments takes list, suspend ID --reason R or resume ID; see: npx berth --help');
      });
    }
    case 'usage': {
      const report = await admin.withStore(config, (store) =>
        admin.usageReport(admin.operatorDeps(store, config), opts.month),
      );
      if (opts.json) out(JSON.stringify(report, null, 2));
      else {
        out(`Usage in ${report.month}`);
        for (const r of report.deployments)
          out(
            `${r.deploymentId}  ${r.apiMode.padEnd(9)}  ${r.ownerEmail}  replies ${r.replies}  tokens ${r.promptTokens}+${r.completionTokens}  $${r.costUsd.toFixed(6)}`,
          );
        for (const o of report.owners) out(`owner ${o.ownerEmail}: replies ${o.replies}, $${o.costUsd.toFixed(6)}`);
      }
      return 0;
    }
    case 'users': {
      if ((opts.positionals ?? [])[0] !== 'list') throw new Error('admin users takes list; see: npx berth --help');
      const users = await admin.withStore(config, (store) => admin.listUsersForOperator(store.repos));
      if (opts.json) out(JSON.stringify(users, null, 2));
      else for (const u of users) out(`${u.id}  ${u.email}  created ${u.createdAt}  deployments ${u.deployments}`);
      return 0;
    }
    default:
      throw new Error(`unknown command "admin ${command}"; see: npx berth --help`);
  }
}
