// `npm run demo` only: the person writes to the demo bot as a Telegram user and sees the chat as
// Telegram would show it (formatted HTML, drafts replaced by the final message). Elsewhere the
// server has no such routes and the page says how to start the demo.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { writeHeaders } from '../api/client';
import { ErrorNotice } from '../components/ErrorNotice';
import { TelegramHtml } from '../components/TelegramHtml';

interface Line {
  id: number;
  from: 'user' | 'bot';
  text: string;
  parseMode: string | null;
  /** A photo, voice note or document the bot sent (DESIGN §9.5), as a data URL. */
  media?: { kind: 'photo' | 'voice' | 'document'; url: string; fileName: string };
}
interface Transcript {
  bot: { username: string | null };
  messages: Line[];
  /** The answer being written (a Telegram draft), until the message replaces it. */
  draft?: { text: string; parseMode: string | null } | null;
}

/** Only `npm run demo` serves the demo's routes; it says so with a cookie (testkit demo/telegram-chat.ts). */
export const isDemo = () => typeof document !== 'undefined' && /(?:^|;\s*)berth_demo=1(?:;|$)/.test(document.cookie);

export const DEMO_KEY = ['demo-telegram'] as const;

export async function fetchDemo(): Promise<Transcript | null> {
  const res = await fetch('/api/demo/telegram', { credentials: 'same-origin' });
  if (res.status === 404) return null;
  if (!res.ok) throw new Error(`The demo answered ${res.status}.`);
  return ((await res.json()) as { data: Transcript }).data;
}

export function useDemo(poll = false) {
  return useQuery({
    queryKey: DEMO_KEY,
    queryFn: fetchDemo,
    // Outside the demo nothing is asked (no 404 in the console on every page).
    enabled: isDemo(),
    // Faster while an answer is being written, so its drafts show as they stream.
    refetchInterval: (q) => (!poll ? false : q.state.data?.draft ? 250 : 700),
    retry: false,
  });
}

export function DemoPage() {
  const demo = useDemo(true);
  const qc = useQueryClient();
  const [text, setText] = useState('');
  const [error, setError] = useState<unknown>();
  const log = useRef<HTMLOListElement>(null);
  const count = demo.data?.messages.length ?? 0;
  useEffect(() => {
    if (count) log.current?.lastElementChild?.scrollIntoView({ block: 'end' });
  }, [count]);

  if (demo.isPending && isDemo()) return <p className="muted">Loading…</p>;
  if (!isDemo() || demo.data === null)
    return (
      <section>
        <h1>Telegram demo</h1>
        <p>
          This page works in the sandbox only: run <code>npm run demo</code> and open the address it prints.
        </p>
      </section>
    );

  async function send(e: React.FormEvent) {
    e.preventDefault();
    const message = text.trim();
    if (!message) return;
    setError(undefined);
    const res = await fetch('/api/demo/telegram', {
      method: 'POST',
      credentials: 'same-origin',
      headers: writeHeaders(),
      body: JSON.stringify({ text: message }),
    });
    if (!res.ok) {
      setError(new Error(((await res.json()) as { error?: { message?: string } }).error?.message ?? 'Not sent.'));
      return;
    }
    setText('');
    await qc.invalidateQueries({ queryKey: DEMO_KEY });
  }

  const username = demo.data?.bot.username;
  return (
    <section className="demo">
      <h1>Telegram demo</h1>
      <p className="muted">
        You are a Telegram user writing to <strong>@{username ?? 'the demo bot'}</strong>. Replies arrive as Telegram
        would show them. Try <code>what time is it?</code>, <code>what is 12*7?</code>, <code>draw a lighthouse</code>,{' '}
        <code>send me a CSV</code> or <code>/help</code>. Every answer is also a voice note.
      </p>
      <ErrorNotice error={demo.error ?? error} />
      <ol className="tg-chat" aria-label="Telegram chat" ref={log}>
        {demo.data?.messages.map((m) => (
          <li key={m.id} className={`tg-msg tg-${m.from}`} aria-label={m.from === 'bot' ? `@${username}` : 'You'}>
            {m.media?.kind === 'photo' && <img className="tg-photo" src={m.media.url} alt="What the bot drew" />}
            {m.media?.kind === 'voice' && (
              <audio controls src={m.media.url} aria-label="A voice note from the bot">
                <track kind="captions" />
              </audio>
            )}
            {m.media?.kind === 'document' && (
              <a href={m.media.url} download={m.media.fileName}>
                📎 {m.media.fileName}
              </a>
            )}
            {m.text && <TelegramHtml text={m.text} parseMode={m.parseMode} />}
          </li>
        ))}
        {demo.data?.draft && (
          <li className="tg-msg tg-bot tg-draft" aria-label={`@${username} is writing`}>
            <TelegramHtml text={demo.data.draft.text} parseMode={demo.data.draft.parseMode} />
          </li>
        )}
      </ol>
      <form className="row" onSubmit={send}>
        <label className="visually-hidden" htmlFor="tg-input">
          Message
        </label>
        <input
          id="tg-input"
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder="Message"
          maxLength={4096}
          autoComplete="off"
        />
        <button type="submit">Send</button>
      </form>
    </section>
  );
}
