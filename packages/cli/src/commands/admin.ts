import { admin, loadConfig } from '@berth/server';
import { status } from '../status.js';
import { operatorCommand } from './admin-operator.js';
import type { AdminOptions } from './admin-options.js';

export type { AdminOptions };

// The store is opened by the server's admin verbs (admin/accounts.ts), never here.
function withConfig<T>(fn: (config: ReturnType<typeof loadConfig>) => Promise<T>): Promise<T> {
  const config = loadConfig();
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
      console.error(
        `Created key ${res.prefix}… for ${res.user.email} (user ${res.user.id}). It is shown once; store it now.`,
      );
      console.log(res.key);
      return 0;
    }
    case 'list-keys': {
      const email = need(opts.email, '--email', command);
      const { user, keys } = await withConfig((c) => admin.listKeys(c, email));
      console.error(`${keys.length} key(s) for ${user.email}`);
      for (const k of keys)
        console.log(
          `${k.id}  ${k.prefix}…  created ${k.createdAt}  ${k.revokedAt ? `revoked ${k.revokedAt}` : 'active'}`,
        );
      return 0;
    }
    case 'revoke-key': {
      const email = need(opts.email, '--email', command);
      const key = need(opts.key, '--key', command);
      await withConfig((c) => admin.revokeKey(c, email, key));
      console.log(`revoked ${key}`);
      return 0;
    }
    case 'reset-link': {
      const email = need(opts.email, '--email', command);
      const res = await withConfig((c) => admin.resetLink(c, email));
      console.error(`A one-time link to set a new password for ${email}, valid until ${res.expiresAt}:`);
      console.log(res.link);
      return 0;
    }
    case 'show-user': {
      const email = need(opts.email, '--email', command);
      const u = await withConfig((c) => admin.showAccount(c, email));
      console.log(`id: ${u.id}\nemail: ${u.email}\ncreated: ${u.createdAt}\nwebhook secret: ${u.webhookSecret}`);
      return 0;
    }
    case 'invite': {
      const email = need(opts.email, '--email', command);
      const res = await withConfig((c) => admin.invite(c, email));
      console.error(`Sign-up link for ${res.email} (single use, valid 7 days); pass it on:`);
      console.log(res.url);
      return 0;
    }
    case 'placement': {
      const deployment = need(opts.deployment, '--deployment', command);
      const placement = need(opts.placement, '--placement', command);
      const res = await withConfig((c) => admin.placeDeployment(c, deployment, placement));
      console.log(`${res.deploymentId}: placement ${res.placement}`);
      console.error(
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
