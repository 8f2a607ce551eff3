// The signed-in user's account: change the password (ends every other session; optionally revokes
// every API key the user made), sign out everywhere.
import { BerthApiError } from '@berth/client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { api, setCsrfToken, unwrap } from '../api/client';
import { useSession } from '../api/session';
import { ErrorNotice, fieldErrors } from '../components/ErrorNotice';
import { Field } from '../components/Field';
import { when } from '../components/format';
import { Form } from '../forms/Form';
import { SubmitButton } from '../forms/SubmitButton';
import { useFieldValues } from '../forms/useFieldValues';

export function AccountPage() {
  const user = useSession().data?.user;
  const qc = useQueryClient();
  const navigate = useNavigate();
  const passwords = useFieldValues({ currentPassword: '', newPassword: '' });
  // After a leak a new password alone leaves the API keys working: offer to revoke them with it.
  const [revokeKeys, setRevokeKeys] = useState(false);
  const change = useMutation({
    mutationFn: async () => {
      await unwrap(api.POST('/api/auth/password', { body: { ...passwords.values, revokeKeys } }));
      return { revokedKeys: revokeKeys };
    },
    onSuccess: () => {
      passwords.clear();
      qc.invalidateQueries();
    },
  });
  const everywhere = useMutation({
    mutationFn: () => unwrap(api.POST('/api/auth/logout-all')),
    onSuccess: () => {
      setCsrfToken(undefined);
      qc.clear();
      navigate('/signin');
    },
  });
  const errors = fieldErrors(change.error, ['currentPassword', 'newPassword']);
  // A wrong current password is 403 FORBIDDEN (not 401: the session is fine); it belongs to that field.
  const wrongCurrent = change.error instanceof BerthApiError && change.error.code === 'FORBIDDEN';
  return (
    <>
      <h1>Account</h1>
      <p>
        Signed in as <strong>{user?.email}</strong>, member since {when(user?.createdAt)}.
      </p>
      <section aria-labelledby="password-title" className="card">
        <h2 id="password-title">Change password</h2>
        <Form className="stack" onSubmit={() => change.mutate()}>
          <Field
            label="Current password"
            type="password"
            autoComplete="current-password"
            required
            {...passwords.bind('currentPassword')}
            error={wrongCurrent ? (change.error as BerthApiError).message : errors.byField.currentPassword}
          />
          <Field
            label="New password"
            hint="At least 10 characters. Every other session is signed out."
            type="password"
            autoComplete="new-password"
            required
            {...passwords.bind('newPassword')}
            error={errors.byField.newPassword}
          />
          <label>
            <input type="checkbox" checked={revokeKeys} onChange={(e) => setRevokeKeys(e.target.checked)} /> Also revoke
            all my API keys
          </label>
          {!wrongCurrent && <ErrorNotice error={errors.general} />}
          {change.isSuccess && (
            <p className="notice notice-ok" role="status">
              Password changed. Other sessions were signed out
              {change.data?.revokedKeys ? ' and every API key you made was revoked' : ''}.
            </p>
          )}
          <div>
            <SubmitButton pending={change.isPending} busy="Saving…">
              Change password
            </SubmitButton>
          </div>
        </Form>
      </section>
      <section aria-labelledby="sessions-title" className="card">
        <h2 id="sessions-title">Sessions</h2>
        <p>Signs out this browser and every other one where you are signed in.</p>
        <ErrorNotice error={everywhere.error} />
        <button type="button" className="secondary" onClick={() => everywhere.mutate()} disabled={everywhere.isPending}>
          Sign out everywhere
        </button>
      </section>
    </>
  );
}
