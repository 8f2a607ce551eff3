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
  const files: Array<'message:photo' | 'message:voice' | 'message:audio' | 'message:document'> = [
    'message:photo',
    'message:voice',
    'message:audio',
    'message:document',
  ];
  // First, before anything that waits: answers keep the order the sender wrote in.
  c.on('message', (ctx, next) => roomOf(ctx).arrives(ctx, next));
  // An edit touches only words already let through and still waiting; it is never answered itself.
  c.on('edited_message:text', (ctx) => roomOf(ctx).answerEdit(ctx));
  c.use(addressedOnly);
  c.use(access);
  c.use(commands());
  c.use(userCommands());
  // One budget per chat for words and files alike; words take theirs per burst (bot.ts answerText).
  c.on('message:text', mentionGate, (ctx) => roomOf(ctx).answerText(ctx));
  c.on(files, mentionGate, rateLimit, (ctx) => roomOf(ctx).answerMedia(ctx));
  c.on('message', mentionGate, (ctx) => ctx.reply(textsOf(ctx).unsupported));
  tree = c.middleware();
  return tree;
}
