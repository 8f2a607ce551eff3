// One assistant's settings (DESIGN §7.1): the owner's persona, access rules and behaviour. The
// control plane validates and stores versions of this document and sends it whole to the agent
// (local host and both Kubernetes placements); the agent validates the same schema. Adding a
// setting is: a field here, the server's builder, the agent's consumer.
import { Type, type Static } from 'typebox';
import { TELEGRAM_TEXT_FORMAT, TELEGRAM_TEXT_MAX } from './telegram-text.js';
import { TIME_ZONE_FORMAT, TIME_ZONE_MAX } from './time-zone.js';

export const DEFAULT_SYSTEM_PROMPT =
  'You are a helpful assistant. Answer concisely. Use the tools when they help: current_datetime for dates and times, calculator for arithmetic, fetch_web_page to read a public web page.';

/** How long a user's messages are gathered into one turn when the owner has not said (settings.burstMs). */
export const DEFAULT_BURST_MS = 1500;
/** Longer would leave a user waiting on an answer for no reason they can see. */
export const BURST_MS_MAX = 10_000;

/** "auto" or a BCP 47 tag such as "de", "pt-BR", "zh-Hant-TW". */
export const LANGUAGE_PATTERN = '^(auto|[A-Za-z]{2,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?)$';

export const SettingsTools = Type.Object(
  {
    webPage: Type.Boolean(),
    webSearch: Type.Boolean(),
    calculator: Type.Boolean(),
    time: Type.Boolean(),
    memory: Type.Boolean(),
    reminders: Type.Boolean(),
  },
  { additionalProperties: false },
);

export const SettingsAccess = Type.Object(
  {
    mode: Type.Union([Type.Literal('open'), Type.Literal('allowlist'), Type.Literal('pairing')]),
    // Telegram user ids (> 0), and the ids of chats that write on their own behalf (< 0): a channel
    // a member posts as, or a group's anonymous administrators (decision 0031, telegram-senders).
    telegramUserIds: Type.Array(Type.Integer({ minimum: -(2 ** 53 - 1), maximum: 2 ** 53 - 1 }), {
      maxItems: 1000,
      uniqueItems: true,
    }),
    perUserDailyReplies: Type.Union([Type.Integer({ minimum: 1, maximum: 100_000 }), Type.Null()]),
    // Optional so documents written before it stay whole (DESIGN §9.3: the owner blocks one of the
    // top end users in any mode); absent is none. A blocked user is refused before the model.
    blockedTelegramUserIds: Type.Optional(
      Type.Array(Type.Integer({ minimum: -(2 ** 53 - 1), maximum: 2 ** 53 - 1 }), {
        maxItems: 1000,
        uniqueItems: true,
      }),
    ),
    // WhatsApp end users by phone number (their wa_id: digits, country code first, no plus sign).
    // Optional, like the blocked list, so documents written before WhatsApp stay whole (decision
    // 0033-whatsapp-agent): allowlist and pairing modes let in these numbers on WhatsApp.
    whatsappNumbers: Type.Optional(
      Type.Array(Type.String({ pattern: '^[0-9]{6,20}$' }), { maxItems: 1000, uniqueItems: true }),
    ),
    blockedWhatsappNumbers: Type.Optional(
      Type.Array(Type.String({ pattern: '^[0-9]{6,20}$' }), { maxItems: 1000, uniqueItems: true }),
    ),
    // Discord end users by user id (a snowflake, as a string: it does not fit a JSON number's safe
    // range). Optional for the same reason; allowlist and pairing modes let in these users on Discord.
    discordUserIds: Type.Optional(
      Type.Array(Type.String({ pattern: '^[0-9]{17,20}$' }), { maxItems: 1000, uniqueItems: true }),
    ),
    blockedDiscordUserIds: Type.Optional(
      Type.Array(Type.String({ pattern: '^[0-9]{17,20}$' }), { maxItems: 1000, uniqueItems: true }),
    ),
  },
  { additionalProperties: false },
);

export const AssistantSettings = Type.Object(
  {
    systemPrompt: Type.String({ minLength: 1, maxLength: 20_000 }),
    welcomeMessage: Type.Union([
      Type.String({
        minLength: 1,
        maxLength: TELEGRAM_TEXT_MAX,
        format: TELEGRAM_TEXT_FORMAT,
        description: 'Sent as Telegram counts it: at most 4,096 UTF-16 code units, not only spaces.',
      }),
      Type.Null(),
    ]),
    language: Type.String({ pattern: LANGUAGE_PATTERN, maxLength: 35 }),
    tools: SettingsTools,
    access: SettingsAccess,
    groups: Type.Union([Type.Literal('off'), Type.Literal('mention'), Type.Literal('all')]),
    historyChars: Type.Integer({ minimum: 1000, maximum: 200_000 }),
    // DESIGN §9.3: the owner's own Telegram account; with it, pairing requests reach the owner in
    // Telegram with Approve and Deny buttons (the owner must have written to the bot once).
    owner: Type.Optional(
      Type.Object(
        { telegramUserId: Type.Union([Type.Integer({ minimum: 1, maximum: 2 ** 53 - 1 }), Type.Null()]) },
        { additionalProperties: false },
      ),
    ),
    timezone: Type.Optional(
      Type.Union([
        Type.String({
          format: TIME_ZONE_FORMAT,
          maxLength: TIME_ZONE_MAX,
          description:
            'IANA time zone (e.g. "Europe/Berlin") for end users who have not set their own with /timezone; null or absent: ask them when it matters, UTC until then.',
        }),
        Type.Null(),
      ]),
    ),
    // DESIGN §9.5. Optional, so that documents stored before them stay valid: absent is the default.
    voiceReplies: Type.Optional(
      Type.Union([Type.Literal('off'), Type.Literal('when-spoken-to'), Type.Literal('always')], {
        description:
          'The answer also as a Telegram voice note (OGG/Opus), its text kept: "off" (the default), "when-spoken-to" (answering a voice note) or "always". Needs a provider with speech in the model catalog.',
      }),
    ),
    imagesPerTurn: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 4,
        description:
          'Pictures generate_image may send in one answer (default 1; 0 turns the tool off). Needs a provider with images in the model catalog.',
      }),
    ),
    // Optional so documents written before it stay whole (DESIGN §9.4); absent is DEFAULT_BURST_MS.
    burstMs: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: BURST_MS_MAX,
        description:
          'Messages of one user in one chat that arrive within this many milliseconds of each other (or while the answer to their last one is written) are answered together in one turn; 0 answers each message on its own. Absent: 1500.',
      }),
    ),
  },
  { additionalProperties: false, $id: 'AssistantSettings' },
);
export type AssistantSettings = Static<typeof AssistantSettings>;

/** Version 1 of every new deployment. */
export function defaultSettings(): AssistantSettings {
  return {
    systemPrompt: DEFAULT_SYSTEM_PROMPT,
    welcomeMessage: null,
    language: 'auto',
    tools: { webPage: true, webSearch: true, calculator: true, time: true, memory: true, reminders: true },
    access: { mode: 'open', telegramUserIds: [], perUserDailyReplies: null },
    groups: 'mention',
    historyChars: 24_000,
    voiceReplies: 'off',
    imagesPerTurn: 1,
  };
}
