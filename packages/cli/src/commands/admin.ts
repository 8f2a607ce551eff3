import {
  createApiKey,
  createSecretBox,
  listApiKeys,
  loadConfig,
  openStore,
  resolveSecretsKey,
  revokeApiKey,
  showUser,
  UserRepo,
  type AdminDeps,
} from '@berth/server';
import { status } from '../status.js';

async function withDeps<T>(fn: (deps: AdminDeps) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const done = status(`Opening the ${config.databaseUrl ? 'PostgreSQL' : `SQLite store in ${config.dataDir}`}`);
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  done();
  try {
    const secrets = createSecretBox(resolveSecretsKey(config.secretsKey, config.dataDir));
    return await fn({ users: new UserRepo(store.db), secrets, now: () => new Date() });
  } finally {
    await store.close();
  }
}

function need(value: string | undefined, flag: string, command: string): string {
  if (!value) throw new Error(`${command} needs ${flag}; see: npx berth --help`);
  return value;
}

export async function adminCommand(command: string, opts: { email?: string; key?: string }): Promise<number> {
  switch (command) {
    case 'create-key': {
      const email = need(opts.email, '--email', command);
      const res = await withDeps((d) => createApiKey(d, email));
      console.error(
        `Created key ${res.prefix}… for ${res.user.email} (user ${res.user.id}). It is shown once; store it now.`,
      );
      console.log(res.key);
      return 0;
    }
    case 'list-keys': {
      const email = need(opts.email, '--email', command);
      const { user, keys } = await withDeps((d) => listApiKeys(d, email));
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
      await withDeps((d) => revokeApiKey(d, email, key));
      console.log(`revoked ${key}`);
      return 0;
    }
    case 'show-user': {
      const email = need(opts.email, '--email', command);
      const u = await withDeps((d) => showUser(d, email));
      console.log(`id: ${u.id}\nemail: ${u.email}\ncreated: ${u.createdAt}\nwebhook secret: ${u.webhookSecret}`);
      return 0;
    }
    default:
      throw new Error(`unknown command "admin ${command}"; see: npx berth --help`);
  }
}
