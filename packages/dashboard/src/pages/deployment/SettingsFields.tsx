// The fields of the whole settings document (settings-form.ts holds the values and the rules):
// each with its label, a hint where the value needs one, and its sentence when it needs a change.
import { useState } from 'react';
import { type ControlProps, Labelled, Options } from '../../components/Field';
import {
  type AccessMode,
  type FormErrors,
  GROUPS,
  LANGUAGES,
  parseDiscordUserId,
  parseUserId,
  parseWhatsAppNumber,
  type SettingsForm,
  TOOL_LABELS,
  type Tools,
  VOICE,
} from './settings-form';

const ACCESS: { value: AccessMode; label: string }[] = [
  { value: 'open', label: 'Anyone who finds the bot' },
  { value: 'allowlist', label: 'Only the people I allowed' },
  { value: 'pairing', label: 'People I approve with a pairing code' },
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

/** The lists of one verb: Telegram's users (named as Berth saw them), then each other channel's people. */
function IdLists({
  verb,
  form,
  names,
  error,
  onChange,
}: {
  verb: 'allow' | 'block';
  form: SettingsForm;
  names: Map<number, string>;
  /** The Telegram list's sentence from the form's rules. */
  error?: string;
  onChange(patch: Partial<SettingsForm>): void;
}) {
  const telegram = verb === 'allow' ? 'allowed' : 'blocked';
  const title = verb === 'allow' ? 'Allowed' : 'Blocked';
  return (
    <>
      <IdList
        title={`${title} Telegram users`}
        kind="Telegram user id"
        ids={form[telegram]}
        names={names}
        verb={verb}
        error={error}
        parse={telegramId}
        onChange={(ids) => onChange({ [telegram]: ids })}
      />
      {OTHER_CHANNELS.map((c) => (
        <IdList
          key={c[verb]}
          title={`${title} ${c.people}`}
          kind={c.kind}
          ids={form[c[verb]]}
          verb={verb}
          parse={c.parse}
          onChange={(ids) => onChange({ [c[verb]]: ids })}
        />
      ))}
    </>
  );
}

/** The form's fields typed as text (numbers too: settings-form.ts parses them) and those picked from a list. */
type TextKey = 'historyChars' | 'burstMs' | 'timezone' | 'ownerTelegramId' | 'daily';
type ChoiceKey = 'language' | 'groups' | 'voiceReplies' | 'mode';

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
  // Labelled's children: one field's control, bound to its value in the form.
  const text =
    (key: TextKey, numeric = true) =>
    (p: ControlProps) => (
      <input
        {...p}
        inputMode={numeric ? 'numeric' : undefined}
        value={form[key]}
        onChange={(e) => onChange({ [key]: e.target.value })}
      />
    );
  const choice =
    <K extends ChoiceKey>(key: K, choices: readonly { value: SettingsForm[K]; label: string }[]) =>
    (p: ControlProps) => (
      <select {...p} value={form[key]} onChange={(e) => onChange({ [key]: e.target.value as SettingsForm[K] })}>
        <Options items={choices} value={(c) => c.value} label={(c) => c.label} />
      </select>
    );
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
        {choice('language', languages)}
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
      <Labelled label="In group chats">{choice('groups', GROUPS)}</Labelled>
      <Labelled
        label="Conversation kept word for word (characters)"
        hint="Older turns are summarised beyond it. From 1,000 to 200,000."
        error={errors.historyChars}
      >
        {text('historyChars')}
      </Labelled>
      <Labelled
        label="Wait for more messages (milliseconds, empty: 1,500)"
        hint="Messages one person sends this close together are answered as one. From 0 (each on its own) to 10,000."
        error={errors.burstMs}
      >
        {text('burstMs')}
      </Labelled>
      <Labelled
        label="Voice replies"
        hint="Answers also spoken as a Telegram voice note (needs a model whose provider can speak)."
      >
        {choice('voiceReplies', VOICE)}
      </Labelled>
      <Labelled
        label="Time zone for people who have not set theirs"
        hint="An IANA name such as Europe/Berlin; each person can set their own with /timezone. Empty: the bot asks when it matters."
        error={errors.timezone}
      >
        {text('timezone', false)}
      </Labelled>
      <Labelled
        label="Your Telegram user id"
        hint="Pairing requests then reach you in Telegram with Approve and Deny buttons (write to your bot once first)."
        error={errors.ownerTelegramId}
      >
        {text('ownerTelegramId')}
      </Labelled>
      <Labelled label="Who may talk to the bot">{choice('mode', ACCESS)}</Labelled>
      {form.mode !== 'open' && (
        <IdLists verb="allow" form={form} names={names} error={errors.allowed} onChange={onChange} />
      )}
      <IdLists verb="block" form={form} names={names} onChange={onChange} />
      <Labelled label="Replies per person per day (empty: no limit)" error={errors.daily}>
        {text('daily')}
      </Labelled>
    </>
  );
}
