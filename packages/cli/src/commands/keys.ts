// berth keys: which key is in use (whoami), and the user's key management over the server's
// /api/keys routes (list, create, revoke) with the key in use. See docs/decisions/0014-user-cli.md
// and 0019-accounts-and-organizations.md.
import { io } from '../io.js';
import { UsageError } from '../config/env.js';
import { printJson, printTable } from '../output/print.js';
import { note, type Ctx } from './context.js';

export async function keysCommand(
  ctx: Ctx,
  sub: string | undefined,
  args: string[] = [],
  opts: { name?: string; org?: string } = {},
): Promise<number> {
  switch (sub) {
    case 'whoami':
      return whoami(ctx);
    case 'list':
      return list(ctx);
    case 'create': {
      if (!opts.name) throw new UsageError('"berth keys create" needs --name <name>');
      const k = await ctx.client().createKey({ name: opts.name, ...(opts.org ? { organizationId: opts.org } : {}) });
      if (ctx.json) printJson(k);
      else {
        note(
          `Created key ${k.prefix}… "${k.name}" (${k.id})${k.organizationId ? ` for organization ${k.organizationId}` : ''}. It is shown once; store it now.`,
        );
        io().stdout.write(`${k.key}\n`);
      }
      return 0;
    }
    case 'revoke': {
      const id = args[0];
      if (!id) throw new UsageError('"berth keys revoke" needs the key id (see: berth keys list)');
      await ctx.client().revokeKey(id);
      if (ctx.json) printJson({ id, revoked: true });
      else io().stdout.write(`revoked ${id}\n`);
      return 0;
    }
    default:
      throw new UsageError(`"berth keys ${sub ?? ''}": the subcommands are whoami, list, create and revoke`);
  }
}

async function whoami(ctx: Ctx): Promise<number> {
  const { key, source } = ctx.key();
  const client = ctx.client();
  const [account, list] = await Promise.all([client.account(), client.list()]);
  const assistants = list.length;
  const info = {
    url: ctx.env.url,
    prefix: key.slice(0, 12),
    source,
    valid: true,
    assistants,
    email: account.user.email,
    organization: account.organization,
    key: account.key,
  };
  if (ctx.json) printJson(info);
  else {
    const who = account.organization
      ? `${account.user.email}, acting for organization "${account.organization.name}"`
      : account.user.email;
    const keyName = account.key?.name ? ` "${account.key.name}"` : '';
    io().stdout.write(
      `${who}\nkey ${info.prefix}…${keyName} from ${source === 'config' ? 'berth login' : 'BERTH_API_KEY'}, accepted by ${info.url} (${assistants} assistant(s))\n`,
    );
  }
  return 0;
}

async function list(ctx: Ctx): Promise<number> {
  const keys = await ctx.client().listKeys();
  if (ctx.json) {
    printJson(keys);
    return 0;
  }
  if (!keys.length) {
    io().stdout.write('No keys.\n');
    return 0;
  }
  printTable([
    ['ID', 'NAME', 'PREFIX', 'ORGANIZATION', 'CREATED', 'LAST USED', 'REVOKED'],
    ...keys.map((k) => [
      k.id,
      k.name || '-',
      `${k.prefix}…`,
      k.organizationId ?? '-',
      k.createdAt,
      k.lastUsedAt ?? 'never',
      k.revokedAt ?? '-',
    ]),
  ]);
  return 0;
}
