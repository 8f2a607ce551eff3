// The dashboard's "Telegram demo" page talks to these routes: the signed-in person writes as a
// Telegram user to the demo bot (through the loopback Telegram stand-in) and reads the chat back as
// Telegram holds it. Registered on the control plane only by `npm run demo`; never in production.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { FakeTelegram } from '../fake-telegram.js';

/** The cookie the demo sets on every answer (the dashboard reads it: see the onRequest hook below). */
export const DEMO_COOKIE = 'berth_demo';

/** One private chat per dashboard user, with a stable Telegram-sized id. */
export function demoChatId(userId: string): number {
  return 100_000_000 + (createHash('sha256').update(userId).digest().readUInt32BE(0) % 900_000_000);
}

interface Line {
  id: number;
  from: 'user' | 'bot';
  text: string;
  parseMode: string | null;
  /** A photo, voice note or document the bot sent (DESIGN §9.5), as a data URL the page shows. */
  media?: { kind: 'photo' | 'voice' | 'document'; url: string; fileName: string };
}

const MEDIA_KIND = { sendPhoto: 'photo', sendVoice: 'voice', sendDocument: 'document' } as const;
const MEDIA_TYPE = { photo: 'image/png', voice: 'audio/ogg', document: 'text/plain' } as const;

export function demoTelegramRoutes(app: FastifyInstance, tg: FakeTelegram, botToken: string) {
  // What the person wrote, each with how many bot messages the chat held then: the order to merge in.
  const said = new Map<number, Array<Line & { after: number }>>();
  let next = 1;
  // Texts and uploads in the order Telegram numbered them.
  const botLines = (chatId: number): Line[] =>
    [
      ...tg.sent
        .filter((m) => m.token === botToken && Number(m.chat_id) === chatId)
        .map((m) => ({
          order: Number(m.message_id ?? 0),
          // The HTML as sent (the fake keeps the shown text apart), so the page formats it.
          text: m.html ?? String(m.text ?? ''),
          parseMode: m.html !== undefined ? 'HTML' : null,
        })),
      ...tg.media
        .filter((m) => m.token === botToken && m.chat_id === chatId)
        .map((m) => {
          const kind = MEDIA_KIND[m.method];
          return {
            order: m.message_id,
            // The caption as sent (HTML), so the page formats it as Telegram does.
            text: m.captionHtml ?? m.caption ?? '',
            parseMode: m.captionHtml !== undefined ? 'HTML' : null,
            media: {
              kind,
              url: `data:${MEDIA_TYPE[kind]};base64,${m.bytes.toString('base64')}`,
              fileName: m.fileName,
            },
          };
        }),
    ]
      .sort((a, b) => a.order - b.order)
      .map(({ order: _, ...l }, i) => ({ id: 1_000_000 + i, from: 'bot' as const, ...l }));
  const transcript = (chatId: number): Line[] => {
    const own = said.get(chatId) ?? [];
    const out: Line[] = [];
    botLines(chatId).forEach((b, i) => {
      for (const u of own) if (u.after === i) out.push(u);
      out.push(b);
    });
    const shown = new Set(out.map((l) => l.id));
    for (const u of own) if (!shown.has(u.id)) out.push(u);
    return out.map(({ id, from, text, parseMode, media }) => ({
      id,
      from,
      text,
      parseMode,
      ...(media ? { media } : {}),
    }));
  };

  // The answer being written, as Telegram shows it: the newest draft of the chat, until a message
  // of the bot's comes after it (Telegram replaces the draft with the real message).
  const draftOf = (chatId: number): { text: string; parseMode: string | null } | null => {
    const draft = tg.drafts.filter((d) => d.token === botToken && d.chat_id === chatId).at(-1);
    if (!draft) return null;
    const mine = (m: { token: string; chat_id: unknown; at?: number }) =>
      m.token === botToken && Number(m.chat_id) === chatId && (m.at ?? 0) >= draft.at;
    if (tg.sent.some(mine) || tg.media.some(mine)) return null;
    return draft.html !== undefined ? { text: draft.html, parseMode: 'HTML' } : { text: draft.text, parseMode: null };
  };

  // Only this process has the demo: the dashboard asks for it only where this cookie says so, so a
  // real server's pages never request a route it does not have (issue 62: a 404 on every page load).
  app.addHook('onRequest', async (req, reply) => {
    // On the dashboard's pages only: API answers keep the cookies their clients expect.
    if (req.method === 'GET' && !req.url.startsWith('/api/'))
      reply.header('set-cookie', `${DEMO_COOKIE}=1; Path=/; SameSite=Lax`);
  });

  app.get('/api/demo/telegram', { config: { auth: 'apiKey' } }, async (req) => {
    const bot = tg.bots.get(botToken);
    const chatId = demoChatId(req.userId);
    return {
      data: { bot: { username: bot?.username ?? null }, messages: transcript(chatId), draft: draftOf(chatId) },
    };
  });

  app.post<{ Body: { text?: unknown } }>('/api/demo/telegram', { config: { auth: 'apiKey' } }, async (req, reply) => {
    const text = typeof req.body?.text === 'string' ? req.body.text.trim() : '';
    if (!text || text.length > 4096) {
      return reply.status(400).send({
        error: { code: 'INVALID_REQUEST', message: 'Write a message of 1 to 4,096 characters.' },
      });
    }
    const chatId = demoChatId(req.userId);
    const lines = said.get(chatId) ?? [];
    lines.push({ id: next++, from: 'user', text, parseMode: null, after: botLines(chatId).length });
    said.set(chatId, lines.slice(-200));
    tg.userSends(botToken, chatId, { text });
    return reply.status(202).send({ data: { sent: true } });
  });
}
