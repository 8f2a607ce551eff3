// A Discord bot token checked when it is attached (issue 59): GET /users/@me with it names the bot
// (details.botUsername). A refused token (401) is stored `failed` with a sentence saying what to
// fix; Discord unreachable is not the owner's mistake: stored as connecting, the worker's Gateway
// connection says the rest. The invite URL asks for the scopes and permissions the channel uses.
import type { ChannelViewData } from './schemas.js';

/** View Channel, Send Messages, Send Messages in Threads, Read Message History, Attach Files. */
export const DISCORD_PERMISSIONS = (1n << 10n) | (1n << 11n) | (1n << 38n) | (1n << 16n) | (1n << 15n);

export const inviteUrl = (applicationId: string) =>
  `https://discord.com/oauth2/authorize?${new URLSearchParams({
    client_id: applicationId,
    scope: 'bot applications.commands',
    permissions: String(DISCORD_PERMISSIONS),
  })}`;

export const WAITING_FOR_DISCORD = 'Connecting to Discord.';
export const DISCORD_TOKEN_REFUSED =
  'Discord refused the bot token (it was reset, revoked or mistyped). Copy a new token from the Bot page of the Discord Developer Portal and set the channel again.';

type Checked = {
  status: Extract<ChannelViewData['status'], 'connecting' | 'failed'>;
  statusMessage: string;
  botUsername: string | null;
};

export async function checkDiscord(root: string, botToken: string): Promise<Checked> {
  let res: Response;
  try {
    res = await fetch(`${root}/v10/users/@me`, {
      headers: { authorization: `Bot ${botToken}` },
      signal: AbortSignal.timeout(5_000),
    });
  } catch {
    return {
      status: 'connecting',
      statusMessage: 'Discord could not be reached to check the bot token; the assistant connects when it can.',
      botUsername: null,
    };
  }
  const body = (await res.json().catch(() => undefined)) as { username?: unknown; message?: unknown } | undefined;
  if (res.ok && typeof body?.username === 'string')
    return { status: 'connecting', statusMessage: WAITING_FOR_DISCORD, botUsername: body.username };
  if (res.status === 401) return { status: 'failed', statusMessage: DISCORD_TOKEN_REFUSED, botUsername: null };
  const said = typeof body?.message === 'string' ? ` (Discord: ${body.message.slice(0, 200)})` : '';
  return {
    status: 'connecting',
    statusMessage: `Discord answered ${res.status} when the bot token was checked${said}.`,
    botUsername: null,
  };
}
