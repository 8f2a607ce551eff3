// API keys: a new key is shown once (with a copy button) and never again; the list shows only
// prefixes and dates; revoking asks first.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { activeOrganization, api, unwrap } from '../api/client';
import { useKeys, useOrganizations } from '../api/accounts';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ErrorNotice, fieldErrors } from '../components/ErrorNotice';
import { Field, Options } from '../components/Field';
import { when } from '../components/format';
import { ShownOnce } from '../components/ShownOnce';
import { Table } from '../components/Table';
import { Form } from '../forms/Form';
import { SubmitButton } from '../forms/SubmitButton';
import { useFieldValues } from '../forms/useFieldValues';

export function KeysPage() {
  const keys = useKeys();
  const orgs = useOrganizations().data ?? [];
  const qc = useQueryClient();
  const { values, bind, clear } = useFieldValues({ name: '' });
  // A key made while acting as an organization belongs to it unless the user picks otherwise.
  const [owner, setOwner] = useState(activeOrganization() ?? '');
  const [shown, setShown] = useState<{ name: string; key: string } | undefined>();
  const [revoking, setRevoking] = useState<{ id: string; name: string } | undefined>();
  const create = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/keys', { body: { name: values.name, ...(owner ? { organizationId: owner } : {}) } })),
    onSuccess: (k) => {
      setShown({ name: k.name, key: k.key });
      clear();
      qc.invalidateQueries({ queryKey: ['keys'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/api/keys/{id}', { params: { path: { id } } })),
    onSuccess: () => {
      setRevoking(undefined);
      qc.invalidateQueries({ queryKey: ['keys'] });
    },
  });
  const errors = fieldErrors(create.error, ['name', 'organizationId']);
  const orgName = (id: string | null) => (id ? (orgs.find((o) => o.id === id)?.name ?? 'organization') : 'Personal');
  const live = keys.data?.filter((k) => !k.revokedAt) ?? [];
  const revoked = keys.data?.filter((k) => k.revokedAt) ?? [];
  return (
    <>
      <h1>API keys</h1>
      <p className="muted">
        Keys let the API, the OpenAI SDKs and the <code>berth</code> CLI act for you (or for an organization).
      </p>
      {shown && (
        <section className="notice notice-ok" aria-labelledby="new-key-title">
          <h2 id="new-key-title">Your new key “{shown.name}”</h2>
          <p>Copy it now: it is shown only this once and cannot be recovered.</p>
          <ShownOnce value={shown.key} testId="new-key" copyLabel="Copy key" />
          <button type="button" className="secondary" onClick={() => setShown(undefined)}>
            I have saved it
          </button>
        </section>
      )}
      <section aria-labelledby="create-key-title" className="card">
        <h2 id="create-key-title">Create a key</h2>
        <Form
          className="row wrap"
          onSubmit={() => {
            setShown(undefined);
            create.mutate();
          }}
        >
          <Field
            label="Name"
            hint="What uses it, e.g. “laptop CLI”."
            required
            {...bind('name')}
            error={errors.byField.name}
          />
          {orgs.length > 0 && (
            <div className="field">
              <label htmlFor="key-owner">Belongs to</label>
              <select id="key-owner" value={owner} onChange={(e) => setOwner(e.target.value)}>
                <option value="">Me (personal)</option>
                <Options items={orgs} value={(o) => o.id} label={(o) => o.name} />
              </select>
            </div>
          )}
          <SubmitButton pending={create.isPending} busy="Creating…">
            Create key
          </SubmitButton>
        </Form>
        <ErrorNotice error={errors.general} />
      </section>
      <section aria-labelledby="keys-title">
        <h2 id="keys-title">Your keys</h2>
        <ErrorNotice error={keys.error} title="The keys could not be loaded." />
        {keys.data && live.length === 0 && <p className="empty">No active keys. Create one above.</p>}
        {live.length > 0 && (
          <Table columns={['Name', 'Key', 'Belongs to', 'Created', 'Last used']} actions>
            {live.map((k) => (
              <tr key={k.id}>
                <th scope="row">{k.name}</th>
                <td className="mono">{k.prefix}…</td>
                <td>{orgName(k.organizationId)}</td>
                <td>{when(k.createdAt)}</td>
                <td>{k.lastUsedAt ? when(k.lastUsedAt) : 'never'}</td>
                <td>
                  <button
                    type="button"
                    className="danger small"
                    onClick={() => setRevoking({ id: k.id, name: k.name })}
                    aria-label={`Revoke ${k.name}`}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </Table>
        )}
        {revoked.length > 0 && (
          <details>
            <summary>Revoked keys ({revoked.length})</summary>
            <ul>
              {revoked.map((k) => (
                <li key={k.id}>
                  {k.name} <span className="mono">{k.prefix}…</span>, revoked {when(k.revokedAt)}
                </li>
              ))}
            </ul>
          </details>
        )}
      </section>
      <ConfirmDialog
        open={revoking !== undefined}
        title={`Revoke “${revoking?.name ?? ''}”?`}
        confirmLabel="Revoke"
        danger
        busy={revoke.isPending}
        onConfirm={() => revoking && revoke.mutate(revoking.id)}
        onCancel={() => {
          setRevoking(undefined);
          revoke.reset();
        }}
      >
        <p>Everything that uses this key stops working at once. This cannot be undone.</p>
        <ErrorNotice error={revoke.error} />
      </ConfirmDialog>
    </>
  );
}
