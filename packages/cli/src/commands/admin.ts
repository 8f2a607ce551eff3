import { err, io, out } from '../io.js';
import { admin, loadConfig } from '@berth/server';
import { status } from '../status.js';
import { operatorCommand } from './admin-operator.js';
import type { AdminOptions } from './admin-options.js';

export type { AdminOptions };

// The store is opened by the server's admin verbs (admin/accounts.ts), never here.
function withConfig<T>(fn: (config: ReturnType<typeof loadConfig>) => Promise<T>): Promise<T> {
  const config = loadConfig(io().env);
  const done = status(`Opening the ${config.databaseUrl ? 'PostgreSQL' : `SQLite store in ${config.dataDir}`}`);
  return fn(config).finally(done);
}

function need(value: string | undefined, flag: string, command: string): string {
  if (!value) throw new Error(`${command} needs ${flag}; see: npx berth --help`);
  return value;
}

export async function adminCommand(command: string, opts: AdminOptions): Promise<number> {
  switch (command) {
    case 'backup':
    case 'restore':
    case 'migrate':
    case 'deployments':
    case 'usage':
    case 'users':
      return operatorCommand(command, opts);
    case 'create-key': {
      const email = need(opts.email, '--email', command);
      const res = await withConfig((c) => admin.createKey(c, email));
      err(`Created key ${res.prefix}… for ${res.user.email} (user ${res.user.id}). It is shown once; store it now.`);
      out(res.key);
      return 0;
    }
    case 'list-keys': {
      const email = need(opts.email, '--email', command);
      const { user, keys } = await withConfig((c) => admin.listKeys(c, email));
      err(`${keys.length} key(s) for ${user.email}`);
      for (const k of keys)
        out(`${k.id}  ${k.prefix}…  created ${k.createdAt}  ${k.revokedAt ? `revoked ${k.revokedAt}` : 'active'}`);
      return 0;
    }
    case 'revoke-key': {
      const email = need(opts.email, '--email', command);
      const key = need(opts.key, '--key', command);
      await withConfig((c) => admin.revokeKey(c, email, key));
      out(`revoked ${key}`);
      return 0;
    }
    case 'reset-link': {
      const email = need(opts.email, '--email', command);
      const res = await withConfig((c) => admin.resetLink(c, email));
      err(`A one-time link to set a new password for ${email}, valid until ${res.expiresAt}:`);
      out(res.link);
      return 0;
    }
    case 'show-user': {
      const email = need(opts.email, '--email', command);
      const u = await withConfig((c) => admin.showAccount(c, email));
      out(`id: ${u.id}\nemail: ${u.email}\ncreated: ${u.createdAt}\nwebhook secret: ${u.webhookSecret}`);
      return 0;
    }
    case 'invite': {
      const email = need(opts.email, '--email', command);
      const res = await withConfig((c) => admin.invite(c, email));
      err(`Sign-up link for ${res.email} (single use, valid 7 days); pass it on:`);
      out(res.url);
      return 0;
    }
    case 'placement': {
      const deployment = need(opts.deployment, '--deployment', command);
      const placement = need(opts.placement, '--placement', command);
      const res = await withConfig((c) => admin.placeDeployment(c, deployment, placement));
      out(`${res.deploymentId}: placement ${res.placement}`);
      err(
        res.status === 'active' || res.status === 'deploying'
          ? `It moves when its worker is next created, at the next redeploy (npx berth assistants redeploy ${res.deploymentId}, with the owner's key). Applies with WORKER_BACKEND=kubernetes.`
          : 'It applies when the assistant is next deployed (WORKER_BACKEND=kubernetes).',
      );
      return 0;
    }
    default:
      throw new Error(`unknown command "admin ${command}"; see: npx berth --help`);
  }
}
