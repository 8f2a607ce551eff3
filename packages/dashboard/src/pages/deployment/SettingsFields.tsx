// The fields of the whole settings document (settings-form.ts holds the values and the rules):
// each with its label, a hint where the value needs one, and its sentence when it needs a change.
import { useState } from 'react';
import { Labelled } from '../../components/Field';
import {
  type AccessMode,
  type FormErrors,
  GROUPS,
  type Groups,
  LANGUAGES,
  parseDiscordUserId,
  parseUserId,
  parseWhatsAppNumber,
  type SettingsForm,
  TOOL_LABELS,
  type Tools,
  VOICE,
  type VoiceReplies,
} from './settings-form';

const ACCESS: { mode: AccessMode; label: string }[] = [
  { mode: 'open', label: 'Anyone who finds the bot' },
  { mode: 'allowlist', label: 'Only the people I allowed' },
  { mode: 'pairing', label: 'People I approve with a pairing code' },
];

/**
 * Ids as a list (Telegram user ids, WhatsApp numbers, Discord user ids): each shown with the name
 * Berth saw (if any) and a Remove button. `parse` turns what was typed into an id or throws a
 * sentence saying what an id of that kind looks like.
 */
function IdList<T extends number | string>({
  title,
  kind,
  ids,
  names,
  verb,
  error,
  parse,
  onChange,
}: {
  title: string;
  /** What one id is called: "Telegram user id", "WhatsApp number". */
  kind: string;
  ids: T[];
  names?: Map<T, string>;
  verb: string;
  error?: string;
  parse(raw: string): T;
  onChange(ids: T[]): void;
}) {
  const [typed, setTyped] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const add = () => {
    let parsed: T;
    try {
      parsed = parse(typed);
    } catch (err) {
      return setProblem((err as Error).message);
    }
    setProblem(undefined);
    setTyped('');
    if (!ids.includes(parsed)) onChange([...ids, parsed]);
  };
  return (
    <fieldset className="stack">
      <legend>{title}</legend>
      {ids.length ? (
        <ul className="user-list" aria-label={title}>
          {ids.map((u) => (
            <li key={u} className="row spread">
              <span>
                <span className="mono">{u}</span>
                {names?.get(u) ? ` (${names.get(u)})` : ''}
              </span>
              <button type="button" className="secondary" onClick={() => onChange(ids.filter((x) => x !== u))}>
                Remove {u}
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted small">Nobody yet.</p>
      )}
      <Labelled label={`${kind} to ${verb}`} error={problem ?? error}>
        {(p) => (
          <div className="row">
            <input
              {...p}
              inputMode="numeric"
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter') {
                  e.preventDefault();
                  add();
                }
              }}
            />
            <button type="button" className="secondary" onClick={add}>
              {verb === 'allow' ? 'Allow' : 'Block'}
            </button>
          </div>
        )}
      </Labelled>
    </fieldset>
  );
}

/** The channels beside Telegram whose people the owner lists by id: one allowed and one blocked list each. */
const OTHER_CHANNELS = [
  {
    people: 'WhatsApp numbers',
    kind: 'WhatsApp number',
    parse: parseWhatsAppNumber,
    allow: 'whatsappAllowed',
    block: 'whatsappBlocked',
  },
  {
    people: 'Discord users',
    kind: 'Discord user id',
    parse: parseDiscordUserId,
    allow: 'discordAllowed',
    block: 'discordBlocked',
  },
] as const;

/** parseUserId's sentence as the list's error (IdList's parse throws it). */
const telegramId = (raw: string): number => {
  const parsed = parseUserId(raw);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
};

export function SettingsFields({
  form,
  errors,
  onChange,
  names,
}: {
  form: SettingsForm;
  errors: FormErrors;
  onChange(patch: Partial<SettingsForm>): void;
  names: Map<number, string>;
}) {
  const languages = LANGUAGES.some((l) => l.value === form.language)
    ? LANGUAGES
    : [...LANGUAGES, { value: form.language, label: form.language }];
  return (
    <>
      <Labelled label="Persona (system prompt)" error={errors.systemPrompt}>
        {(p) => (
          <textarea
            {...p}
            rows={6}
            value={form.systemPrompt}
            onChange={(e) => onChange({ systemPrompt: e.target.value })}
          />
        )}
      </Labelled>
      <Labelled
        label="Welcome message"
        hint="The answer to /start. Empty: Berth's own greeting."
        error={errors.welcome}
      >
        {(p) => (
          <textarea {...p} rows={3} value={form.welcome} onChange={(e) => onChange({ welcome: e.target.value })} />
        )}
      </Labelled>
      <Labelled
        label="Language of Berth's own messages"
        hint="Help, limits and errors; the assistant itself answers in the person's language."
      >
        {(p) => (
          <select {...p} value={form.language} onChange={(e) => onChange({ language: e.target.value })}>
            {languages.map((l) => (
              <option key={l.value} value={l.value}>
                {l.label}
              </option>
            ))}
          </select>
        )}
      </Labelled>
      <fieldset className="stack">
        <legend>Tools the assistant may use</legend>
        {(Object.keys(TOOL_LABELS) as (keyof Tools)[]).map((t) => (
          <label key={t} className="check">
            <input
              type="checkbox"
              checked={form.tools[t]}
              onChange={(e) => onChange({ tools: { ...form.tools, [t]: e.target.checked } })}
            />{' '}
            {TOOL_LABELS[t]}
          </label>
        ))}
      </fieldset>
      <Labelled label="In group chats">
        {(p) => (
          <select {...p} value={form.groups} onChange={(e) => onChange({ groups: e.target.value as Groups })}>
            {GROUPS.map((g) => (
              <option key={g.value} value={g.value}>
                {g.label}
              </option>
            ))}
          </select>
        )}
      </Labelled>
      <Labelled
        label="Conversation kept word for word (characters)"
        hint="Older turns are summarised beyond it. From 1,000 to 200,000."
        error={errors.historyChars}
      >
        {(p) => (
          <input
            {...p}
            inputMode="numeric"
            value={form.historyChars}
            onChange={(e) => onChange({ historyChars: e.target.value })}
          />
        )}
      </Labelled>
      <Labelled
        label="Wait for more messages (milliseconds, empty: 1,500)"
        hint="Messages one person sends this close together are answered as one. From 0 (each on its own) to 10,000."
        error={errors.burstMs}
      >
        {(p) => (
          <input
            {...p}
            inputMode="numeric"
            value={form.burstMs}
            onChange={(e) => onChange({ burstMs: e.target.value })}
          />
        )}
      </Labelled>
      <Labelled
        label="Voice replies"
        hint="Answers also spoken as a Telegram voice note (needs a model whose provider can speak)."
      >
        {(p) => (
          <select
            {...p}
            value={form.voiceReplies}
            onChange={(e) => onChange({ voiceReplies: e.target.value as VoiceReplies })}
          >
            {VOICE.map((v) => (
              <option key={v.value} value={v.value}>
                {v.label}
              </option>
            ))}
          </select>
        )}
      </Labelled>
      <Labelled
        label="Time zone for people who have not set theirs"
        hint="An IANA name such as Europe/Berlin; each person can set their own with /timezone. Empty: the bot asks when it matters."
        error={errors.timezone}
      >
        {(p) => <input {...p} value={form.timezone} onChange={(e) => onChange({ timezone: e.target.value })} />}
      </Labelled>
      <Labelled
        label="Your Telegram user id"
        hint="Pairing requests then reach you in Telegram with Approve and Deny buttons (write to your bot once first)."
        error={errors.ownerTelegramId}
      >
        {(p) => (
          <input
            {...p}
            inputMode="numeric"
            value={form.ownerTelegramId}
            onChange={(e) => onChange({ ownerTelegramId: e.target.value })}
          />
        )}
      </Labelled>
      <Labelled label="Who may talk to the bot">
        {(p) => (
          <select {...p} value={form.mode} onChange={(e) => onChange({ mode: e.target.value as AccessMode })}>
            {ACCESS.map((a) => (
              <option key={a.mode} value={a.mode}>
                {a.label}
              </option>
            ))}
          </select>
        )}
      </Labelled>
      {form.mode !== 'open' && (
        <>
          <IdList
            title="Allowed Telegram users"
            kind="Telegram user id"
            ids={form.allowed}
            names={names}
            verb="allow"
            error={errors.allowed}
            parse={telegramId}
            onChange={(allowed) => onChange({ allowed })}
          />
          {OTHER_CHANNELS.map((c) => (
            <IdList
              key={c.allow}
              title={`Allowed ${c.people}`}
              kind={c.kind}
              ids={form[c.allow]}
              verb="allow"
              parse={c.parse}
              onChange={(ids) => onChange({ [c.allow]: ids })}
            />
          ))}
        </>
      )}
      <IdList
        title="Blocked Telegram users"
        kind="Telegram user id"
        ids={form.blocked}
        names={names}
        verb="block"
        parse={telegramId}
        onChange={(blocked) => onChange({ blocked })}
      />
      {OTHER_CHANNELS.map((c) => (
        <IdList
          key={c.block}
          title={`Blocked ${c.people}`}
          kind={c.kind}
          ids={form[c.block]}
          verb="block"
          parse={c.parse}
          onChange={(ids) => onChange({ [c.block]: ids })}
        />
      ))}
      <Labelled label="Replies per person per day (empty: no limit)" error={errors.daily}>
        {(p) => (
          <input {...p} inputMode="numeric" value={form.daily} onChange={(e) => onChange({ daily: e.target.value })} />
        )}
      </Labelled>
    </>
  );
}
