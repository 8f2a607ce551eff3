// The whole settings document as a form (DESIGN §9.3): what the owner types, checked with sentences
// a person reads (the API's own check stays the last word, in the same limits), and turned back
// into the document PUT …/settings stores. Pure, so the card only renders it.
import type { Settings } from '../../api/settings-draft';

export type Tools = Settings['tools'];
export type AccessMode = Settings['access']['mode'];
export type Groups = Settings['groups'];

export interface SettingsForm {
  systemPrompt: string;
  welcome: string;
  language: string;
  tools: Tools;
  groups: Groups;
  historyChars: string;
  /** settings.burstMs; empty: absent, the agent's default. */
  burstMs: string;
  mode: AccessMode;
  allowed: number[];
  daily: string;
  blocked: number[];
  /** WhatsApp numbers (wa_id digits) and Discord user ids (snowflakes) let in or blocked. */
  whatsappAllowed: string[];
  whatsappBlocked: string[];
  discordAllowed: string[];
  discordBlocked: string[];
  voiceReplies: VoiceReplies;
  timezone: string;
  ownerTelegramId: string;
}

export type VoiceReplies = NonNullable<Settings['voiceReplies']>;

export const VOICE: { value: VoiceReplies; label: string }[] = [
  { value: 'off', label: 'Text only' },
  { value: 'when-spoken-to', label: 'Also as a voice note when spoken to' },
  { value: 'always', label: 'Also as a voice note, always' },
];

export type FormErrors = Partial<Record<keyof SettingsForm | 'newAllowed', string>>;

export const TOOL_LABELS: Record<keyof Tools, string> = {
  webPage: 'Read web pages',
  webSearch: 'Search the web',
  calculator: 'Calculator',
  time: 'Date and time',
  memory: 'Remember things about each person',
  reminders: 'Reminders and scheduled tasks',
};

export const GROUPS: { value: Groups; label: string }[] = [
  { value: 'off', label: 'Never answer in groups' },
  { value: 'mention', label: 'Answer when addressed (mentioned or replied to)' },
  { value: 'all', label: 'Answer every message' },
];

/** The languages Berth's own sentences are written in; a stored tag outside them is kept. */
export const LANGUAGES: { value: string; label: string }[] = [
  { value: 'auto', label: "Each person's Telegram language" },
  { value: 'en', label: 'English' },
  { value: 'de', label: 'German' },
  { value: 'es', label: 'Spanish' },
  { value: 'fr', label: 'French' },
  { value: 'pt', label: 'Portuguese' },
  { value: 'ru', label: 'Russian' },
];

export const formOf = (s: Settings): SettingsForm => ({
  systemPrompt: s.systemPrompt,
  welcome: s.welcomeMessage ?? '',
  language: s.language,
  tools: { ...s.tools },
  groups: s.groups,
  historyChars: String(s.historyChars),
  burstMs: s.burstMs === undefined ? '' : String(s.burstMs),
  mode: s.access.mode,
  allowed: [...s.access.telegramUserIds],
  daily: s.access.perUserDailyReplies === null ? '' : String(s.access.perUserDailyReplies),
  blocked: [...(s.access.blockedTelegramUserIds ?? [])],
  whatsappAllowed: [...(s.access.whatsappNumbers ?? [])],
  whatsappBlocked: [...(s.access.blockedWhatsappNumbers ?? [])],
  discordAllowed: [...(s.access.discordUserIds ?? [])],
  discordBlocked: [...(s.access.blockedDiscordUserIds ?? [])],
  voiceReplies: s.voiceReplies ?? 'off',
  timezone: s.timezone ?? '',
  ownerTelegramId: s.owner?.telegramUserId ? String(s.owner.telegramUserId) : '',
});

/** Whether the browser's Intl knows the zone (the server checks the same way). */
const knownZone = (z: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: z });
    return /^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(z);
  } catch {
    return false;
  }
};

const wholeIn = (raw: string, min: number, max: number) => {
  const t = raw.trim().replace(/[ ,_]/g, '');
  if (!/^\d+$/.test(t)) return undefined;
  const n = Number(t);
  return n >= min && n <= max ? n : undefined;
};

/** The schema's limit of settings.burstMs (contracts' BURST_MS_MAX); absent, the agent waits 1,500 ms. */
const BURST_MS_MAX = 10_000;

/** Telegram counts UTF-16 code units, as String.length does. */
const TELEGRAM_MAX = 4096;

/** A Telegram user id typed by the owner: a whole number (negative for a channel posting as itself). */
export function parseUserId(raw: string): number | string {
  const t = raw.trim();
  if (!/^-?\d{1,16}$/.test(t) || !Number.isSafeInteger(Number(t)) || Number(t) === 0)
    return 'A Telegram user id is a whole number, like 123456789 (the person can find theirs with @userinfobot).';
  return Number(t);
}

/** A WhatsApp number typed by the owner: digits with the country code, as WhatsApp shows it. */
export function parseWhatsAppNumber(raw: string): string {
  const t = raw.trim().replace(/[\s()+.-]/g, '');
  if (!/^\d{6,20}$/.test(t))
    throw new Error('A WhatsApp number is its digits with the country code, like 16505551234.');
  return t;
}

/** A Discord user id typed by the owner (Developer Mode → Copy User ID): 17 to 20 digits. */
export function parseDiscordUserId(raw: string): string {
  const t = raw.trim();
  if (!/^\d{17,20}$/.test(t))
    throw new Error('A Discord user id is 17 to 20 digits (in Discord: Developer Mode, then Copy User ID).');
  return t;
}

/** A list field of settings.access: written when it has entries or the stored document had it. */
const listOf = <K extends string>(key: K, list: string[], had: unknown) =>
  (list.length || had !== undefined ? { [key]: list } : {}) as Partial<Record<K, string[]>>;

/** The document to store, or sentences saying what to fix, by field. */
export function settingsOf(base: Settings, f: SettingsForm): { settings: Settings } | { errors: FormErrors } {
  const errors: FormErrors = {};
  if (!f.systemPrompt.trim()) errors.systemPrompt = 'Write a persona: it is what the assistant is told first.';
  else if (f.systemPrompt.length > 20_000)
    errors.systemPrompt = `The persona can be at most 20,000 characters; it has ${f.systemPrompt.length.toLocaleString('en')}.`;
  if (f.welcome.length > TELEGRAM_MAX)
    errors.welcome = `The welcome message can be at most 4,096 characters, as Telegram counts them (an emoji counts as 2); it has ${f.welcome.length.toLocaleString('en')}.`;
  const history = wholeIn(f.historyChars, 1000, 200_000);
  if (history === undefined)
    errors.historyChars =
      'The conversation kept word for word must be a whole number of characters from 1,000 to 200,000.';
  const burst = f.burstMs.trim() === '' ? null : wholeIn(f.burstMs, 0, BURST_MS_MAX);
  if (burst === undefined)
    errors.burstMs =
      'The wait for more messages must be a whole number of milliseconds from 0 to 10,000, or empty for 1,500.';
  const daily = f.daily.trim() === '' ? null : wholeIn(f.daily, 1, 100_000);
  if (daily === undefined)
    errors.daily = 'Replies per person per day must be a whole number from 1 to 100,000, or empty for no limit.';
  if (f.mode === 'allowlist' && f.allowed.length === 0)
    errors.allowed = 'Add at least one Telegram user id: with nobody allowed the bot would answer no one.';
  if (f.allowed.length > 1000) errors.allowed = 'At most 1,000 people can be allowed.';
  const zone = f.timezone.trim();
  if (zone && !knownZone(zone))
    errors.timezone = `"${zone.slice(0, 64)}" is not a time zone; use a name such as Europe/Berlin or America/New_York.`;
  const owner = f.ownerTelegramId.trim() === '' ? null : parseUserId(f.ownerTelegramId);
  if (typeof owner === 'string' || (typeof owner === 'number' && owner < 0))
    errors.ownerTelegramId = 'Your Telegram user id is a whole number, like 123456789 (@userinfobot tells you yours).';
  if (Object.keys(errors).length) return { errors };
  const { burstMs: _burstMs, ...kept } = base;
  return {
    settings: {
      ...kept,
      systemPrompt: f.systemPrompt,
      welcomeMessage: f.welcome.trim() ? f.welcome : null,
      language: f.language,
      tools: f.tools,
      groups: f.groups,
      historyChars: history!,
      // Emptied: the field goes (`kept` has none), and the agent's default applies again.
      ...(burst === null ? {} : { burstMs: burst }),
      access: {
        mode: f.mode,
        telegramUserIds: f.allowed,
        perUserDailyReplies: daily ?? null,
        ...(f.blocked.length || base.access.blockedTelegramUserIds ? { blockedTelegramUserIds: f.blocked } : {}),
        ...listOf('whatsappNumbers', f.whatsappAllowed, base.access.whatsappNumbers),
        ...listOf('blockedWhatsappNumbers', f.whatsappBlocked, base.access.blockedWhatsappNumbers),
        ...listOf('discordUserIds', f.discordAllowed, base.access.discordUserIds),
        ...listOf('blockedDiscordUserIds', f.discordBlocked, base.access.blockedDiscordUserIds),
      },
      ...(f.voiceReplies !== 'off' || base.voiceReplies ? { voiceReplies: f.voiceReplies } : {}),
      ...(zone || base.timezone !== undefined ? { timezone: zone || null } : {}),
      ...(owner !== null || base.owner ? { owner: { telegramUserId: owner as number | null } } : {}),
    },
  };
}
