// The middleware every update of every bot passes, built once per host (room.ts says why): in
// groups what is not addressed to the bot ends first, silently, before any sentence or count;
// then access, so a refused sender reaches neither a command nor the model; then Berth's
// commands; then the group gate and the chat's budget before an answer.
import { Composer, type Context, type MiddlewareFn } from 'grammy';
import { access } from './access.js';
import { ownerPairing } from './owner-pairing.js';
import { commands } from './commands.js';
import { addressedOnly, mentionGate } from './mention-gate.js';
import { rateLimit } from './rate-limit.js';
import { roomOf, textsOf } from './room.js';
import { userCommands } from './user-commands.js';

let tree: MiddlewareFn<Context> | undefined;

export function botMiddleware(): MiddlewareFn<Context> {
  if (tree) return tree;
  const c = new Composer<Context>();
  // The owner's buttons first: the owner is answered whatever the access rules say of them.
  c.on('callback_query:data', ownerPairing);
  c.use(addressedOnly);
  c.use(access);
  c.use(commands());
  c.use(userCommands());
  // One budget per chat for words and files alike.
  c.on('message:text', mentionGate, rateLimit, (ctx) => roomOf(ctx).answerText(ctx));
  c.on(['message:photo', 'message:voice', 'message:audio', 'message:document'], mentionGate, rateLimit, (ctx) =>
    roomOf(ctx).answerMedia(ctx),
  );
  c.on('message', mentionGate, (ctx) => ctx.reply(textsOf(ctx).unsupported));
  tree = c.middleware();
  return tree;
}
