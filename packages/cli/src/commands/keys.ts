// berth keys: the API has no key-management endpoints yet (keys come from the operator's
// `berth admin create-key`), so the user side can only say which key is in use and whether the
// server takes it. See docs/decisions/0014-user-cli.md.
import { UsageError } from '../config/env.js';
import { printJson } from '../output/print.js';
import type { Ctx } from './context.js';

export async function keysCommand(ctx: Ctx, sub: string | undefined): Promise<number> {
  if (sub !== 'whoami') {
    throw new UsageError(
      `"berth keys ${sub ?? ''}": only "berth keys whoami" exists; creating and revoking keys is done by the operator ` +
        '(npx berth admin create-key / revoke-key) until the server has key management',
    );
  }
  const { key, source } = ctx.key();
  const assistants = (await ctx.client().list()).length;
  const info = { url: ctx.env.url, prefix: key.slice(0, 12), source, valid: true, assistants };
  if (ctx.json) printJson(info);
  else
    process.stdout.write(
      `key ${info.prefix}… from ${source === 'config' ? 'berth login' : 'BERTH_API_KEY'}, accepted by ${info.url} (${assistants} assistant(s))\n`,
    );
  return 0;
}
