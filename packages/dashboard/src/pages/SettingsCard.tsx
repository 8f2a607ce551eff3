// "Personality and access" (DESIGN §7.1, §9.3): the whole settings document (persona, welcome,
// language, tools, groups, history, who may talk to the bot with the allowed and blocked users,
// replies per person), saved as a new version and applied live on an active assistant; a preview of
// the unsaved draft in the playground, the kept versions with rollback, and the pending pairing codes
// with Approve. The form checks values with sentences (settings-form.ts); the API has the last word.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
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
import { SettingsFields } from './deployment/SettingsFields';
import { type FormErrors, formOf, type SettingsForm, settingsOf } from './deployment/settings-form';

type Version = components['schemas']['AssistantSettingsVersion'];

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
  const [form, setForm] = useState<SettingsForm | undefined>();
  const [errors, setErrors] = useState<FormErrors>({});
  const [saved, setSaved] = useState<number | undefined>();
  const shown = current.data;
  const navigate = useNavigate();
  // The form follows the stored version whenever a new one arrives (save, rollback, approve); a
  // draft previewed from this version comes back into the form until it is saved or discarded.
  useEffect(() => {
    if (!shown) return;
    const draft = readDraft(id);
    const from = draft?.version === shown.version ? draft.settings : documentOf(shown);
    setForm(formOf(from));
    setErrors({});
  }, [shown, id]);
  const refresh = (v: Version) => {
    clearDraft(id);
    setSaved(v.version);
    return qc.invalidateQueries({ queryKey: key });
  };
  /** The stored document with the form's edits (what Save stores and Preview tries), or undefined
   *  with the sentences shown beside the fields. */
  const edited = (): Settings | undefined => {
    const out = settingsOf(documentOf(shown!), form!);
    if ('errors' in out) {
      setErrors(out.errors);
      return undefined;
    }
    setErrors({});
    return out.settings;
  };
  const save = useMutation({
    mutationFn: (body: Settings) => unwrap(api.PUT('/api/v1/assistants/{deploymentId}/settings', { ...path, body })),
    onSuccess: refresh,
  });
  const preview = () => {
    const settings = edited();
    if (!settings) return;
    writeDraft(id, { settings, version: shown!.version });
    void navigate(`/deployments/${id}/chat?preview=1`);
  };
  const rollback = useMutation({
    mutationFn: (version: number) =>
      unwrap(api.POST('/api/v1/assistants/{deploymentId}/settings/rollback', { ...path, body: { version } })),
    onSuccess: refresh,
  });
  /** A pending pairing request's path: approve and deny both answer one. */
  const pairing = (code: string) => ({ params: { path: { deploymentId: id, code } } });
  const approve = useMutation({
    mutationFn: (code: string) =>
      unwrap(api.POST('/api/v1/assistants/{deploymentId}/pairings/{code}/approve', pairing(code))),
    onSuccess: refresh,
  });
  const deny = useMutation({
    mutationFn: (code: string) =>
      unwrap(api.POST('/api/v1/assistants/{deploymentId}/pairings/{code}/deny', pairing(code))),
    onSuccess: () => qc.invalidateQueries({ queryKey: [...key, 'pairings'] }),
  });
  return (
    <section aria-labelledby="settings-title" className="card">
      <h2 id="settings-title">Personality and access</h2>
      <ErrorNotice error={current.error ?? save.error ?? rollback.error ?? approve.error ?? deny.error} />
      <p className="muted small">
        Everything on this card applies live: a running assistant uses a saved version from its next message, without a
        stop. A stopped one uses it when it is deployed again.
      </p>
      {shown && form && (
        <Form
          className="stack"
          onSubmit={() => {
            const body = edited();
            if (body) save.mutate(body);
          }}
        >
          <SettingsFields
            form={form}
            errors={errors}
            onChange={(patch) => setForm({ ...form, ...patch })}
            names={namesOf(pairings.data)}
          />
          {Object.keys(errors).length > 0 && (
            <p className="notice notice-error" role="alert">
              Some values need a change before saving; each says what above.
            </p>
          )}
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
            <Table columns={['Who', 'Telegram user', 'Asked', 'Code', 'Expires']} actions>
              {pairings.data.map((p) => (
                <tr key={p.code}>
                  <td>{p.name ?? '—'}</td>
                  <td>{p.telegramUserId}</td>
                  {/* A code is valid for an hour from when it was asked for. */}
                  <td>{when(new Date(Date.parse(p.expiresAt) - 3_600_000).toISOString())}</td>
                  <td className="mono">{p.code}</td>
                  <td>{when(p.expiresAt)}</td>
                  <td>
                    <div className="row wrap">
                      <button type="button" onClick={() => approve.mutate(p.code)}>
                        Approve {p.code}
                      </button>
                      <button type="button" className="secondary" onClick={() => deny.mutate(p.code)}>
                        Deny {p.code}
                      </button>
                    </div>
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

/** Names Berth has seen for Telegram users (from their pairing requests), by id. */
function namesOf(pending: { telegramUserId: number; name: string | null }[] | undefined): Map<number, string> {
  const out = new Map<number, string>();
  for (const p of pending ?? []) if (p.name) out.set(p.telegramUserId, p.name);
  return out;
}
