// What a deploy waits for while Telegram cannot be reached, in words the owner can act on:
// "Waiting for Telegram: getMe failed: connection refused (attempt 3)". The control plane shows it
// as the deployment's statusMessage while it is deploying.
import { describeNetworkError } from '@berth/contracts/net';

export function telegramWaitReason(err: unknown, attempt: number): string {
  const e = err as { error_code?: number; description?: string; error?: unknown };
  const why =
    typeof e.error_code === 'number'
      ? `Telegram answered ${e.error_code}${e.description ? ` ${e.description}` : ''}`
      : // grammY's HttpError keeps the network failure in .error, not in .cause.
        describeNetworkError(e.error ?? err);
  return `Waiting for Telegram: getMe failed: ${why} (attempt ${attempt})`;
}
