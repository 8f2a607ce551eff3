// The dashboard's "Telegram demo" page talks to these routes: the signed-in person writes as a
// Telegram user to the demo bot (through the loopback Telegram stand-in) and reads the chat back as
// Telegram holds it. Registered on the control plane only by `npm run demo`; never in production.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { FakeTelegram } from '../fake-telegram.js';

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
          text: String(m.text ?? ''),
          parseMode: typeof m.parse_mode === 'string' ? m.parse_mode : null,
        })),
      ...tg.media
        .filter((m) => m.token === botToken && m.chat_id === chatId)
        .map((m) => {
          const kind = MEDIA_KIND[m.method];
          return {
            order: m.message_id,
            text: m.caption ?? '',
            parseMode: m.caption ? (m.parse_mode ?? null) : null,
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

  app.get('/api/demo/telegram', { config: { auth: 'apiKey' } }, async (req) => {
    const bot = tg.bots.get(botToken);
    return { data: { bot: { username: bot?.username ?? null }, messages: transcript(demoChatId(req.userId)) } };
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
