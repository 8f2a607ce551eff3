// "Personality and access" (DESIGN §7.1): the assistant's persona and who may talk to it, saved as
// a new settings version (applied live on an active assistant), a preview of the unsaved draft in
// the playground, the kept versions with rollback, and the pending pairing codes with Approve.
// The API has the last word on every value.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { useNavigate } from 'react-router';
import type { components } from '@berth/client';
import { api, unwrap } from '../api/client';
import { deploymentsKey } from '../api/deployments';
import { clearDraft, readDraft, writeDraft, type Settings } from '../api/settings-draft';
import { ErrorNotice } from '../components/ErrorNotice';
import { when } from '../components/format';
import { Table } from '../components/Table';
import { Form } from '../forms/Form';
import { SubmitButton } from '../forms/SubmitButton';

type Version = components['schemas']['AssistantSettingsVersion'];
type AccessMode = Settings['access']['mode'];

const ACCESS: { mode: AccessMode; label: string }[] = [
  { mode: 'open', label: 'Anyone who finds the bot' },
  { mode: 'allowlist', label: 'Only the Telegram users I allowed' },
  { mode: 'pairing', label: 'People I approve with a pairing code' },
];

type VoiceReplies = NonNullable<Settings['voiceReplies']>;
const VOICE: { value: VoiceReplies; label: string }[] = [
  { value: 'off', label: 'Never: text only' },
  { value: 'when-spoken-to', label: 'When the person sent a voice note' },
  { value: 'always', label: 'Always' },
];

const documentOf = ({ version: _v, updatedAt: _u, ...settings }: Version): Settings => settings;

export function SettingsCard({ id, active }: { id: string; active: boolean }) {
  const qc = useQueryClient();
  const key = [...deploymentsKey(), id, 'settings'];
  const path = { params: { path: { deploymentId: id } } };
  const current = useQuery({
    queryKey: [...key, 'current'],
    queryFn: () => unwrap(api.GET('/api/v1/assistants/{deploymentId}/settings', path)),
  });
  const versions = useQuery({
    queryKey: [...key, 'versions'],
    queryFn: () => unwrap(api.GET('/api/v1/assistants/{deploymentId}/settings/versions', path)),
  });
  const pairings = useQuery({
    queryKey: [...key, 'pairings'],
    queryFn: () => unwrap(api.GET('/api/v1/assistants/{deploymentId}/pairings', path)),
    refetchInterval: 3000,
    enabled: active,
  });
  const [prompt, setPrompt] = useState('');
  const [mode, setMode] = useState<AccessMode>('open');
  const [daily, setDaily] = useState('');
  const [voice, setVoice] = useState<VoiceReplies>('off');
  const [saved, setSaved] = useState<number | undefined>();
  const shown = current.data;
  const navigate = useNavigate();
  // The form follows the stored version whenever a new one arrives (save, rollback, approve); a
  // draft previewed from this version comes back into the form until it is saved or discarded.
  useEffect(() => {
    if (!shown) return;
    const draft = readDraft(id);
    const from = draft?.version === shown.version ? draft.settings : shown;
    setPrompt(from.systemPrompt);
    setMode(from.access.mode);
    setDaily(from.access.perUserDailyReplies === null ? '' : String(from.access.perUserDailyReplies));
    setVoice(from.voiceReplies ?? 'off');
  }, [shown, id]);
  const refresh = (v: Version) => {
    clearDraft(id);
    setSaved(v.version);
    return qc.invalidateQueries({ queryKey: key });
  };
  /** The stored document with the form's edits: what Save stores and Preview tries. */
  const edited = (): Settings => {
    const doc = documentOf(shown!);
    return {
      ...doc,
      systemPrompt: prompt,
      access: { ...doc.access, mode, perUserDailyReplies: daily.trim() ? Number(daily) : null },
      voiceReplies: voice,
    };
  };
  const save = useMutation({
    mutationFn: () => unwrap(api.PUT('/api/v1/assistants/{deploymentId}/settings', { ...path, body: edited() })),
    onSuccess: refresh,
  });
  const preview = () => {
    writeDraft(id, { settings: edited(), version: shown!.version });
    void navigate(`/deployments/${id}/chat?preview=1`);
  };
  const rollback = useMutation({
    mutationFn: (version: number) =>
      unwrap(api.POST('/api/v1/assistants/{deploymentId}/settings/rollback', { ...path, body: { version } })),
    onSuccess: refresh,
  });
  const approve = useMutation({
    mutationFn: (code: string) =>
      unwrap(
        api.POST('/api/v1/assistants/{deploymentId}/pairings/{code}/approve', {
          params: { path: { deploymentId: id, code } },
        }),
      ),
    onSuccess: refresh,
  });
  const ids = { prompt: useId(), mode: useId(), daily: useId(), voice: useId() };
  return (
    <section aria-labelledby="settings-title" className="card">
      <h2 id="settings-title">Personality and access</h2>
      <ErrorNotice error={current.error ?? save.error ?? rollback.error ?? approve.error} />
      {shown && (
        <Form className="stack" onSubmit={() => save.mutate()}>
          <div className="field">
            <label htmlFor={ids.prompt}>Persona (system prompt)</label>
            <textarea id={ids.prompt} rows={6} value={prompt} onChange={(e) => setPrompt(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor={ids.mode}>Who may talk to the bot</label>
            <select id={ids.mode} value={mode} onChange={(e) => setMode(e.target.value as AccessMode)}>
              {ACCESS.map((a) => (
                <option key={a.mode} value={a.mode}>
                  {a.label}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={ids.daily}>Replies per person per day (empty: no limit)</label>
            <input id={ids.daily} inputMode="numeric" value={daily} onChange={(e) => setDaily(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor={ids.voice}>Also answer with a Telegram voice note</label>
            <select id={ids.voice} value={voice} onChange={(e) => setVoice(e.target.value as VoiceReplies)}>
              {VOICE.map((v) => (
                <option key={v.value} value={v.value}>
                  {v.label}
                </option>
              ))}
            </select>
          </div>
          <div className="row">
            <SubmitButton pending={save.isPending} busy="Saving…">
              Apply persona and access
            </SubmitButton>
            {active && (
              <button type="button" className="secondary" onClick={preview}>
                Preview in the playground
              </button>
            )}
          </div>
          <p role="status" className={saved ? 'notice' : 'visually-hidden'}>
            {saved
              ? `Saved as version ${saved}${active ? '; the running assistant uses it from its next message' : ''}.`
              : `Version ${shown.version}.`}
          </p>
        </Form>
      )}
      {active && (
        <>
          <h3>Waiting for approval</h3>
          {pairings.data?.length ? (
            <Table columns={['Code', 'Telegram user', 'Name', 'Expires']} actions>
              {pairings.data.map((p) => (
                <tr key={p.code}>
                  <td className="mono">{p.code}</td>
                  <td>{p.telegramUserId}</td>
                  <td>{p.name ?? '—'}</td>
                  <td>{when(p.expiresAt)}</td>
                  <td>
                    <button type="button" onClick={() => approve.mutate(p.code)}>
                      Approve {p.code}
                    </button>
                  </td>
                </tr>
              ))}
            </Table>
          ) : (
            <p className="muted">No pending pairing codes.</p>
          )}
        </>
      )}
      <h3>Versions</h3>
      {versions.data && (
        <Table columns={['Version', 'Saved', 'Access', 'Persona']} actions>
          {versions.data.map((v) => (
            <tr key={v.version}>
              <td>{v.version}</td>
              <td>{when(v.updatedAt)}</td>
              <td>{v.access.mode}</td>
              <td>{v.systemPrompt.split('\n')[0]!.slice(0, 60)}</td>
              <td>
                {v.version !== shown?.version && (
                  <button type="button" onClick={() => rollback.mutate(v.version)}>
                    Restore version {v.version}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
