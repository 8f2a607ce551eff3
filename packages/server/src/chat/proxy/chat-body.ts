// The chat body is forwarded byte for byte, so it is parsed here only to check it, with the
// agent's own check so both sides agree; what metering needs from it is read from that one parse.
import { checkChatBody as check } from '@berth/contracts';
import { checkSettings, SETTINGS_PREVIEW_FIELD } from '@berth/contracts/settings';
import { AppError } from '../../platform/errors/app-error.js';
import { MAX_COMPLETION_TOKENS } from '../../billing/index.js';

export interface CheckedChatBody {
  /** The completion tokens the request may cost: its max_tokens / max_completion_tokens, capped. */
  maxTokens: number;
}

/**
 * `vision`: the deployment's model reads images (its catalog entry), so image_url parts may pass.
 * `session`: the caller is a signed-in dashboard session (not a key), the only caller that may
 * send unsaved settings to preview (SETTINGS_PREVIEW_FIELD).
 */
export function checkChatBody(
  raw: Buffer | undefined,
  opts: { vision?: boolean; session?: boolean } = {},
): CheckedChatBody {
  const res = check(raw, { vision: opts.vision });
  if (!res.ok) throw new AppError('INVALID_REQUEST', res.message);
  const b = res.body;
  if (Object.hasOwn(b, SETTINGS_PREVIEW_FIELD)) {
    if (!opts.session)
      throw new AppError(
        'INVALID_REQUEST',
        `"${SETTINGS_PREVIEW_FIELD}" is for the dashboard's playground only (a signed-in session); save settings with \`berth assistants settings set\` instead.`,
      );
    const preview = checkSettings((b as Record<string, unknown>)[SETTINGS_PREVIEW_FIELD]);
    if (!preview.ok) throw new AppError('INVALID_REQUEST', `The settings to preview are not valid: ${preview.message}`);
  }
  let maxTokens = MAX_COMPLETION_TOKENS;
  for (const v of [b.max_tokens, b.max_completion_tokens]) {
    if (typeof v === 'number' && Number.isInteger(v) && v > 0 && v < maxTokens) maxTokens = v;
  }
  return { maxTokens };
}
