// berth assistants channels list|set|remove (DESIGN §9.1): an assistant's channels beside its
// Telegram bot. set whatsapp takes the access token and app secret like the bot token: a flag, "-"
// for stdin or a hidden prompt, never echoed; it prints the webhook URL and verify token to paste
// into the Meta app. set discord takes the bot token the same way and prints the invite URL.
import type { AssistantChannel } from '../api/client.js';
import { UsageError } from '../config/env.js';
import { readSecrets } from '../input/secrets.js';
import { io } from '../io.js';
import { printJson, printTable } from '../output/print.js';
import { note, type Ctx } from './context.js';

const USAGE =
  'usage: berth assistants channels list <id> | berth assistants channels set <id> whatsapp --phone-number-id <id> [--access-token -] [--app-secret -] | berth assistants channels set <id> discord --application-id <id> [--bot-token -] | berth assistants channels remove <id> whatsapp|discord';

export interface ChannelOpts {
  'phone-number-id'?: string;
  'access-token'?: string;
  'app-secret'?: string;
  'application-id'?: string;
  'bot-token'?: string;
}

function showChannel(c: AssistantChannel) {
  const d = c.details as {
    phoneNumberId?: string;
    webhookUrl?: string;
    verifyToken?: string;
    botUsername?: string;
    inviteUrl?: string;
  };
  io().stdout.write(`${c.type}: ${c.status}${c.statusMessage ? ` (${c.statusMessage})` : ''}\n`);
  if (d.phoneNumberId) io().stdout.write(`  phone number id: ${d.phoneNumberId}\n`);
  if (d.webhookUrl) io().stdout.write(`  webhook URL:     ${d.webhookUrl}\n`);
  if (d.verifyToken) io().stdout.write(`  verify token:    ${d.verifyToken}\n`);
  if (d.botUsername) io().stdout.write(`  bot:             ${d.botUsername}\n`);
  if (d.inviteUrl) io().stdout.write(`  invite URL:      ${d.inviteUrl}\n`);
}

export async function channelsCommand(ctx: Ctx, args: string[], o: ChannelOpts): Promise<number> {
  const [verb, id, type] = args;
  if (!id) throw new UsageError(USAGE);
  const client = ctx.client();
  if (verb === 'list' && args.length === 2) {
    const list = await client.channels(id);
    if (ctx.json) printJson(list);
    else if (!list.length) io().stdout.write('No channels yet: activate the assistant or set one.\n');
    else printTable([['TYPE', 'STATUS', 'DETAILS'], ...list.map((c) => [c.type, c.status, c.statusMessage ?? ''])]);
    return 0;
  }
  if ((type !== 'whatsapp' && type !== 'discord') || args.length !== 3) throw new UsageError(USAGE);
  if (type === 'discord' && verb === 'set') return setDiscord(ctx, id, o);
  if (verb === 'set') {
    if (!o['phone-number-id'])
      throw new UsageError("--phone-number-id is required (from the Meta app's WhatsApp API setup)");
    const [accessToken, appSecret] = await readSecrets([
      {
        flag: '--access-token',
        value: o['access-token'],
        required: true,
        source: 'a system user token of the Meta app',
      },
      { flag: '--app-secret', value: o['app-secret'], required: true, source: "the Meta app's secret" },
    ]);
    const c = await client.setWhatsApp(id, {
      phoneNumberId: o['phone-number-id'],
      accessToken: accessToken!,
      appSecret: appSecret!,
    });
    if (ctx.json) printJson(c);
    else {
      showChannel(c);
      note("Paste the webhook URL and verify token into the Meta app's WhatsApp webhook settings.");
    }
    return 0;
  }
  if (verb === 'remove') {
    const done = await client.removeChannel(id, type);
    if (ctx.json) printJson(done);
    else io().stdout.write(`Removed the ${type === 'discord' ? 'Discord' : 'WhatsApp'} channel.\n`);
    return 0;
  }
  throw new UsageError(USAGE);
}

async function setDiscord(ctx: Ctx, id: string, o: ChannelOpts): Promise<number> {
  if (!o['application-id'])
    throw new UsageError('--application-id is required (the General Information page of the Discord Developer Portal)');
  const [botToken] = await readSecrets([
    {
      flag: '--bot-token',
      value: o['bot-token'],
      required: true,
      source: 'the Bot page of the Discord Developer Portal',
    },
  ]);
  const c = await ctx.client().setDiscord(id, { botToken: botToken!, applicationId: o['application-id'] });
  if (ctx.json) printJson(c);
  else {
    showChannel(c);
    note('Open the invite URL to add the bot to a server; it answers DMs and mentions.');
  }
  return 0;
}
