// berth login / logout: keep one API key in the user's config directory, checked against the
// server before it is saved.
import { io } from '../io.js';
import { BerthClient } from '../api/client.js';
import { forgetKey, saveKey, configFile } from '../config/credentials.js';
import { UsageError } from '../config/env.js';
import { askHidden, readStdin, stdinIsTty } from '../input/prompt.js';
import { printJson } from '../output/print.js';
import { note, type Ctx } from './context.js';

export async function login(ctx: Ctx, opts: { key?: string }): Promise<number> {
  let key = opts.key?.trim();
  if (!key) {
    if (stdinIsTty()) key = await askHidden(`API key for ${ctx.env.url}: `);
    else key = (await readStdin()).trim();
  }
  if (!key) throw new UsageError('no key given: pass --key, pipe it on stdin, or run berth login in a terminal');
  // An authenticated call proves the key before it is kept; a refused key is never saved.
  const count = (await new BerthClient(ctx.env.url, key, io().fetch).list()).length;
  const file = saveKey(ctx.env.configDir, key);
  if (ctx.json) printJson({ loggedIn: true, url: ctx.env.url, prefix: key.slice(0, 12), configFile: file });
  else note(`Logged in to ${ctx.env.url} with key ${key.slice(0, 12)}… (${count} assistant(s)); saved in ${file}`);
  if (ctx.env.apiKey) note('Note: BERTH_API_KEY is set and wins over the saved key.');
  return 0;
}

export function logout(ctx: Ctx): number {
  const removed = forgetKey(ctx.env.configDir);
  if (ctx.json) printJson({ loggedOut: removed });
  else note(removed ? `Removed the saved key (${configFile(ctx.env.configDir)}).` : 'No saved key; nothing to do.');
  return 0;
}
