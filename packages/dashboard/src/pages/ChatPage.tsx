// The chat playground of one deployment: a streamed answer through the chat endpoint, each tool's
// progress as it runs, and one conversation kept by X-Assistant-Session-Id until "New conversation".
// With ?preview=1 it tries the owner's unsaved settings (from the "Personality and access" card) in
// a conversation of its own, then saves or discards them.
import { readChatStream } from '@berth/client';
import { useEffect, useRef, useState } from 'react';
import ReactMarkdown from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { CopyButton } from '../components/CopyButton';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { deploymentsKey, useDeployment } from '../api/deployments';
import { clearDraft, PREVIEW_FIELD, readDraft, type SettingsDraft } from '../api/settings-draft';
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

function sessionFor(id: string, fresh = false, preview = false): string {
  const k = `berth.chat.${id}${preview ? '.preview' : ''}`;
  let s = fresh ? null : sessionStorage.getItem(k);
  if (!s) {
    s = `dashboard-${crypto.randomUUID()}`;
    sessionStorage.setItem(k, s);
  }
  return s;
}

export function ChatPage() {
  const { id = '' } = useParams();
  const [params] = useSearchParams();
  const draft = params.has('preview') ? readDraft(id) : undefined;
  const [saved, setSaved] = useState<number | undefined>();
  // A new key when the mode changes: the preview's conversation is not the saved settings' one.
  return (
    <Playground
      key={draft ? 'preview' : 'plain'}
      id={id}
      draft={draft}
      saved={saved}
      onSaved={setSaved}
      previewAsked={params.has('preview')}
    />
  );
}

/** The draft's banner: what is previewed, and Save or Discard. */
function PreviewBar({
  id,
  draft,
  forget,
  onSaved,
}: {
  id: string;
  draft: SettingsDraft;
  forget: () => void;
  onSaved: (version: number) => void;
}) {
  const navigate = useNavigate();
  const qc = useQueryClient();
  const save = useMutation({
    mutationFn: () =>
      unwrap(
        api.PUT('/api/v1/assistants/{deploymentId}/settings', {
          params: { path: { deploymentId: id } },
          body: draft.settings,
        }),
      ),
    onSuccess: async (v) => {
      clearDraft(id);
      forget();
      onSaved(v.version);
      await qc.invalidateQueries({ queryKey: [...deploymentsKey(), id, 'settings'] });
      void navigate(`/deployments/${id}/chat`, { replace: true });
    },
  });
  return (
    <section aria-label="Unsaved settings" className="notice stack">
      <p>
        <strong>Previewing unsaved settings.</strong> Answers here use your draft persona; Telegram users and other
        chats still get version {draft.version} until you save.
      </p>
      <ErrorNotice error={save.error} />
      <div className="row">
        <button type="button" disabled={save.isPending} onClick={() => save.mutate()}>
          {save.isPending ? 'Saving…' : 'Save these settings'}
        </button>
        <Link to={`/deployments/${id}`}>Keep editing</Link>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            clearDraft(id);
            forget();
            void navigate(`/deployments/${id}`);
          }}
        >
          Discard the draft
        </button>
      </div>
    </section>
  );
}

function Playground({
  id,
  draft,
  saved,
  onSaved,
  previewAsked,
}: {
  id: string;
  draft: SettingsDraft | undefined;
  saved: number | undefined;
  onSaved: (version: number) => void;
  previewAsked: boolean;
}) {
  const d = useDeployment(id).data;
  const [session, setSession] = useState(() => sessionFor(id, false, !!draft));
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

  /** Stops the answer and forgets this conversation on the assistant too, not only on this page. */
  const forget = () => {
    abort.current?.abort();
    void api
      .DELETE('/api/v1/assistants/{deploymentId}/sessions/{sessionId}', {
        params: { path: { deploymentId: id, sessionId: session } },
      })
      .catch(() => {});
  };
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
          // The unsaved settings ride with each turn of the preview; nothing is stored by it.
          ...(draft ? { [PREVIEW_FIELD]: draft.settings } : {}),
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
      {draft && (
        <PreviewBar
          id={id}
          draft={draft}
          onSaved={onSaved}
          forget={() => {
            forget();
            sessionStorage.removeItem(`berth.chat.${id}.preview`);
          }}
        />
      )}
      {previewAsked && !draft && (
        <p className="notice">There is no draft to preview; edit the persona on the deployment's page first.</p>
      )}
      {saved !== undefined && !draft && (
        <p role="status" className="notice">
          Saved as version {saved}; the running assistant uses it from its next message.
        </p>
      )}
      <section aria-labelledby="conversation-title" className="card chat">
        <div className="row spread">
          <h2 id="conversation-title">Conversation</h2>
          <button
            type="button"
            className="secondary"
            onClick={() => {
              forget();
              setTurns([]);
              setError(undefined);
              setSession(sessionFor(id, true, !!draft));
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
        {lastUser && !draft && (
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
