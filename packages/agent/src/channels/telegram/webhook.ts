// Webhook mode (TELEGRAM_DELIVERY=webhook, DESIGN §9.1): instead of the long poll, the bot asks
// Telegram to POST its updates to the control plane's ingress (with a per-bot secret_token); they
// come back through the host's POST …/updates. Switching modes loses nothing: Telegram keeps
// updates for a bot until they are fetched or delivered, a poller that meets a webhook deletes it
// (polling.ts, on 409), and setWebhook takes over what was not fetched.
import { GrammyError, type Bot } from 'grammy';
import { ALLOWED_UPDATES, type Polling, sleep } from './polling.js';
import { describeNetworkError } from '@berth/contracts/net';

export interface TelegramWebhook {
  url: string;
  secretToken: string;
}

/** getMe, then setWebhook until Telegram takes it; a refusal (400: not https, unreachable) is final. */
export async function runWebhook(p: Polling, bot: Bot, hook: TelegramWebhook, signal: AbortSignal): Promise<void> {
  if (!(await p.identify())) return;
  await p.confirmOffset();
  let backoff = 1000;
  while (!signal.aborted) {
    try {
      await bot.api.setWebhook(
        hook.url,
        { secret_token: hook.secretToken, allowed_updates: [...ALLOWED_UPDATES] },
        signal as never,
      );
      p.connected();
      return;
    } catch (err) {
      if (signal.aborted) return;
      if (err instanceof GrammyError && err.error_code === 400) {
        p.fail(
          `Telegram refused the webhook ${hook.url} (${err.description}). PUBLIC_BASE_URL must be an https address Telegram can reach, or set TELEGRAM_DELIVERY=polling.`,
        );
        return;
      }
      p.error = `Setting the Telegram webhook failed (${err instanceof GrammyError ? err.description : describeNetworkError(err)}); retrying.`;
      await sleep(backoff, signal);
      backoff = Math.min(backoff * 2, 30_000);
    }
  }
}

/** On stop: Telegram keeps the updates that come meanwhile for whoever takes the bot next. */
export async function removeWebhook(bot: Bot): Promise<void> {
  await bot.api.deleteWebhook(undefined, AbortSignal.timeout(5_000) as never).catch(() => {});
}
