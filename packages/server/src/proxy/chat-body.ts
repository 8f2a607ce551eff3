// The chat body is forwarded byte for byte, so it is parsed here only to check it, with the
// agent's own check so both sides agree.
import { checkChatBody as check } from '@berth/contracts';
import { AppError } from '../errors/app-error.js';

export function checkChatBody(raw: Buffer | undefined): void {
  const res = check(raw);
  if (!res.ok) throw new AppError('INVALID_REQUEST', res.message);
}
