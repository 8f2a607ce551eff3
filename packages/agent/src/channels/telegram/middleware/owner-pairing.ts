// Pairing requests reach the owner in Telegram (DESIGN §9.3): with settings.owner.telegramUserId,
// the bot sends the owner each new code with Approve and Deny buttons; pressing one decides it
// through the control plane (the dashboard's Approve: a new settings version, applied live), then
// the owner's message says what was decided and the stranger is told they are in. Only the owner's
// press counts, whatever the access rules say of the owner.
import type { Context, NextFunction } from 'grammy';
import type { Pairing } from '../../../storage/access.js';
import { fill, type Texts, textsFor } from '../texts/index.js';
import { type PairingDecision, roomOf, textsOf } from './room.js';

export type { PairingDecision, PairingOutcome } from './room.js';

const DATA = /^pair:([ad]):([A-Z0-9]{8})$/;

/** The owner's message and its two buttons (callback data well under Telegram's 64 bytes). */
export function ownerNotice(t: Texts, p: Pairing) {
  return {
    text: fill(t.pairingAskOwner, { name: p.name ?? t.someone, id: p.telegramUserId, code: p.code }),
    reply_markup: {
      inline_keyboard: [
        [
          { text: t.pairingApprove, callback_data: `pair:a:${p.code}` },
          { text: t.pairingDeny, callback_data: `pair:d:${p.code}` },
        ],
      ],
    },
  };
}

export async function ownerPairing(ctx: Context, next: NextFunction) {
  const m = DATA.exec(ctx.callbackQuery?.data ?? '');
  if (!m) return next();
  const room = roomOf(ctx);
  const t = textsOf(ctx);
  const owner = room.settings().owner?.telegramUserId;
  if (!owner || ctx.from?.id !== owner) return ctx.answerCallbackQuery({ text: t.pairingOwnerOnly });
  const code = m[2]!;
  const decision: PairingDecision = m[1] === 'a' ? 'approve' : 'deny';
  // Who asked, read before the decision removes the code.
  const asked = room.accessStore.find(room.agent, code, Date.now());
  const outcome = await room.decidePairing(code, decision);
  if (outcome !== 'done')
    return ctx.answerCallbackQuery({ text: outcome === 'gone' ? t.pairingGone : t.pairingFailed });
  const name = (typeof asked === 'object' && asked.name) || t.someone;
  const said = fill(decision === 'approve' ? t.pairingApproved : t.pairingDenied, { name });
  await ctx.answerCallbackQuery({ text: said });
  // The buttons go: the message keeps the request and says what was decided.
  const original =
    ctx.callbackQuery?.message && 'text' in ctx.callbackQuery.message ? ctx.callbackQuery.message.text : '';
  await ctx.editMessageText(`${original}\n\n${decision === 'approve' ? '✅' : '❌'} ${said}`).catch(() => {});
  if (decision === 'approve' && typeof asked === 'object')
    await ctx.api
      .sendMessage(asked.telegramUserId, textsFor(room.settings().language, undefined).pairingWelcome)
      .catch(() => {});
}
