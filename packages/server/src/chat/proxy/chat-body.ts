// The chat body is forwarded byte for byte, so it is parsed here only to check it, with the
// agent's own check so both sides agree; what metering needs from it is read from that one parse.
import { checkChatBody as check } from '@berth/contracts';
import { AppError } from '../../platform/errors/app-error.js';
import { MAX_COMPLETION_TOKENS } from '../../billing/gateway/safe-body.js';

export interface CheckedChatBody {
  /** The completion tokens the request may cost: its max_tokens / max_completion_tokens, capped. */
  maxTokens: number;
}

/** `vision`: the deployment's model reads images (its catalog entry), so image_url parts may pass. */
export function checkChatBody(raw: Buffer | undefined, opts: { vision?: boolean } = {}): CheckedChatBody {
  const res = check(raw, opts);
  if (!res.ok) throw new AppError('INVALID_REQUEST', res.message);
  const b = res.body;
  let maxTokens = MAX_COMPLETION_TOKENS;
  for (const v of [b.max_tokens, b.max_completion_tokens]) {
    if (typeof v === 'number' && Number.isInteger(v) && v > 0 && v < maxTokens) maxTokens = v;
  }
  return { maxTokens };
}
