// The chat playground of one deployment: a streamed answer through the chat endpoint, each tool's
// progress as it runs, and one conversation kept by X-Assistant-Session-Id until "New conversation".
import { readChatStream } from '@berth/client';
import { useEffect, useRef, useState } from 'react';
import ReactMarkdown from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { CopyButton } from '../components/CopyButton';
import { Link, useParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { useDeployment } from '../api/deployments';
import { ErrorNotice } from '../components/ErrorNotice';
import { StatusBadge } from '../components/StatusBadge';

interface Turn {
  role: 'user' | 'assistant';
  text: string;
  progress: { emoji: string; label: string }[];
  pending?: boolean;
  usage?: { promptTokens: number; completionTokens: number };
}

/** The model's Markdown as elements: raw HTML in an answer is dropped, unsafe link schemes too. */
function Answer({ text }: { text: string }) {
  return (
    <div className="text markdown">
      <ReactMarkdown
        remarkPlugins={[remarkGfm]}
        skipHtml
        components={{
          a: ({ href, children }) => (
            <a href={href} rel="noreferrer noopener nofollow" target="_blank">
              {children}
            </a>
          ),
        }}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}

/** The last message as a curl command with this conversation's session; the key from BERTH_API_KEY. */
function curlFor(id: string, session: string, text: string): string {
  const body = JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content: text }] });
  return `curl -s ${window.location.origin}/api/v1/assistants/${id}/chat/completions \\
  -H "Authorization: Bearer $BERTH_API_KEY" \\
  -H 'X-Assistant-Session-Id: ${session.replaceAll("'", "'\\''")}' \\
  -H 'content-type: application/json' \\
  -d '${body.replaceAll("'", "'\\''")}'`;
}

function sessionFor(id: string, fresh = false): string {
  const k = `berth.chat.${id}`;
  let s = fresh ? null : sessionStorage.getItem(k);
  if (!s) {
    s = `dashboard-${crypto.randomUUID()}`;
    sessionStorage.setItem(k, s);
  }
  return s;
}

export function ChatPage() {
  const { id = '' } = useParams();
  const d = useDeployment(id).data;
  const [session, setSession] = useState(() => sessionFor(id));
  const [turns, setTurns] = useState<Turn[]>([]);
  const [input, setInput] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  // What a screen reader hears: each tool's label, then the whole answer once (not every delta).
  const [announce, setAnnounce] = useState('');
  const abort = useRef<AbortController | undefined>(undefined);
  const log = useRef<HTMLOListElement>(null);
  useEffect(() => () => abort.current?.abort(), []);
  // After a reload the conversation comes back from the assistant, which still remembers it.
  useEffect(() => {
    let live = true;
    api
      .GET('/api/v1/assistants/{deploymentId}/sessions/{sessionId}', {
        params: { path: { deploymentId: id, sessionId: session } },
      })
      .then(({ data }) => {
        if (!live || !data) return;
        setTurns((now) =>
          now.length
            ? now
            : data.data.messages
                .filter((m) => m.role !== 'system')
                .map((m) => ({ role: m.role as Turn['role'], text: m.content, progress: [] })),
        );
      })
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [id, session]);
  useEffect(() => {
    log.current?.lastElementChild?.scrollIntoView({ block: 'end' });
  }, [turns]);

  const lastUser = [...turns].reverse().find((t) => t.role === 'user')?.text;
  const patchLast = (f: (t: Turn) => Turn) => setTurns((all) => [...all.slice(0, -1), f(all[all.length - 1]!)]);

  async function send(text: string) {
    setError(undefined);
    setBusy(true);
    setTurns((all) => [
      ...all,
      { role: 'user', text, progress: [] },
      { role: 'assistant', text: '', progress: [], pending: true },
    ]);
    const ctl = new AbortController();
    abort.current = ctl;
    let answer = '';
    try {
      const res = await api.POST('/api/v1/assistants/{deploymentId}/chat/completions', {
        params: { path: { deploymentId: id }, header: { 'X-Assistant-Session-Id': session } },
        // The session holds the history: only the new turn is sent.
        body: {
          model: 'assistant-agent',
          messages: [{ role: 'user', content: text }],
          stream: true,
          stream_options: { include_usage: true },
        },
        parseAs: 'stream',
        signal: ctl.signal,
      });
      if (!res.response.ok || !res.response.body) {
        // Not a stream: the error envelope. Read it through the same typed path as every call.
        await unwrap(
          Promise.resolve({ error: await res.response.json().catch(() => undefined), response: res.response }),
        );
        return;
      }
      for await (const ev of readChatStream(res.response.body)) {
        if (ev.type === 'delta') {
          answer += ev.text;
          patchLast((t) => ({ ...t, text: t.text + ev.text }));
        }
        if (ev.type === 'progress') {
          setAnnounce(ev.label);
          patchLast((t) => ({ ...t, progress: [...t.progress, ev] }));
        }
        if (ev.type === 'usage')
          patchLast((t) => ({ ...t, usage: { promptTokens: ev.promptTokens, completionTokens: ev.completionTokens } }));
        if (ev.type === 'error') throw ev.error;
      }
    } catch (err) {
      const stopped = err instanceof DOMException && err.name === 'AbortError';
      if (!stopped) setError(err);
      patchLast((t) => ({ ...t, text: `${t.text}${stopped ? ' (stopped)' : t.text ? '' : '—'}`.trim() }));
    } finally {
      if (answer) setAnnounce(`Assistant: ${answer}`);
      patchLast((t) => ({ ...t, pending: false }));
      setBusy(false);
    }
  }

  return (
    <>
      <p className="crumbs">
        <Link to="/">Deployments</Link> / <Link to={`/deployments/${id}`}>{d?.name ?? 'Deployment'}</Link> /{' '}
        <span aria-current="page">Chat</span>
      </p>
      <div className="row spread">
        <h1>Chat with {d?.name ?? 'the assistant'}</h1>
        {d && <StatusBadge status={d.status} />}
      </div>
      {d && d.status !== 'active' && (
        <p className="notice">This assistant is {d.status}; it answers once it is active.</p>
      )}
      <section aria-labelledby="conversation-title" className="card chat">
        <div className="row spread">
          <h2 id="conversation-title">Conversation</h2>
          <button
            type="button"
            className="secondary"
            onClick={() => {
              abort.current?.abort();
              // The old conversation is forgotten by the assistant too, not only by this page.
              void api
                .DELETE('/api/v1/assistants/{deploymentId}/sessions/{sessionId}', {
                  params: { path: { deploymentId: id, sessionId: session } },
                })
                .catch(() => {});
              setTurns([]);
              setError(undefined);
              setSession(sessionFor(id, true));
            }}
          >
            New conversation
          </button>
        </div>
        {turns.length === 0 && (
          <p className="muted">Say something. The assistant remembers this conversation until you start a new one.</p>
        )}
        <p role="status" className="visually-hidden">
          {announce}
        </p>
        {/* Scrolls by itself: focusable so a keyboard can scroll it too. */}
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard */}
        <ol className="turns" ref={log} aria-label="Messages" tabIndex={0}>
          {turns.map((t, i) => (
            <li key={i} className={`turn turn-${t.role}`} aria-busy={t.pending || undefined}>
              <span className="who">{t.role === 'user' ? 'You' : 'Assistant'}</span>
              {t.progress.length > 0 && (
                <ul className="progress" aria-label="Tool activity">
                  {t.progress.map((p, j) => (
                    <li key={j}>
                      <span aria-hidden="true">{p.emoji}</span> {p.label}
                    </li>
                  ))}
                </ul>
              )}
              {t.role === 'assistant' && t.text ? (
                <Answer text={t.text} />
              ) : (
                <p className="text">{t.text || (t.pending ? 'Thinking…' : '')}</p>
              )}
              {t.usage && (
                <p className="muted small usage">
                  {t.usage.promptTokens} tokens in, {t.usage.completionTokens} out
                </p>
              )}
            </li>
          ))}
        </ol>
        <ErrorNotice error={error} />
        {lastUser && (
          <p>
            <CopyButton value={curlFor(id, session, lastUser)} label="Copy as curl" />
          </p>
        )}
        <form
          className="composer"
          onSubmit={(e) => {
            e.preventDefault();
            const text = input.trim();
            if (!text || busy) return;
            setInput('');
            void send(text);
          }}
        >
          <label htmlFor="message" className="visually-hidden">
            Message
          </label>
          <textarea
            id="message"
            rows={2}
            value={input}
            placeholder="Message the assistant (Enter sends, Shift+Enter for a new line)"
            onChange={(e) => setInput(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey) {
                e.preventDefault();
                e.currentTarget.form?.requestSubmit();
              }
            }}
          />
          {busy ? (
            <button type="button" className="secondary" onClick={() => abort.current?.abort()}>
              Stop answering
            </button>
          ) : (
            <button type="submit" disabled={!input.trim()}>
              Send
            </button>
          )}
        </form>
      </section>
    </>
  );
}
