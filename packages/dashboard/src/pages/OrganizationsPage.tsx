// Organizations: create one, see its members, invite by link (owners), remove members.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { useMembers, useOrganizations } from '../api/accounts';
import { useResetSession, useSession } from '../api/session';
import { CopyButton } from '../components/CopyButton';
import { ErrorNotice, fieldErrors } from '../components/ErrorNotice';
import { Field } from '../components/Field';
import { when } from '../components/format';

export function OrganizationsPage() {
  const orgs = useOrganizations();
  const reset = useResetSession();
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/api/organizations', { body: { name } })),
    onSuccess: async () => {
      setName('');
      await qc.invalidateQueries({ queryKey: ['organizations'] });
      await reset();
    },
  });
  const errors = fieldErrors(create.error, ['name']);
  return (
    <>
      <h1>Organizations</h1>
      <p className="muted">
        Members of an organization share its deployments and keys. Pick “Acting as” in the header to work as one.
      </p>
      <section aria-labelledby="create-org-title" className="card">
        <h2 id="create-org-title">Create an organization</h2>
        <form
          className="row wrap"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate();
          }}
        >
          <Field
            label="Organization name"
            required
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={errors.byField.name}
          />
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create'}
          </button>
        </form>
        <ErrorNotice error={errors.general} />
      </section>
      <ErrorNotice error={orgs.error} title="The organizations could not be loaded." />
      {orgs.data && orgs.data.length === 0 && <p className="empty">You are not in any organization yet.</p>}
      {orgs.data?.map((o) => (
        <OrganizationCard key={o.id} id={o.id} name={o.name} role={o.role} />
      ))}
    </>
  );
}

function OrganizationCard({ id, name, role }: { id: string; name: string; role: 'owner' | 'member' }) {
  const members = useMembers(id);
  const me = useSession().data?.user;
  const qc = useQueryClient();
  const [email, setEmail] = useState('');
  const [inviteRole, setInviteRole] = useState<'owner' | 'member'>('member');
  const [link, setLink] = useState<string | undefined>();
  const invite = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/organizations/{id}/invitations', {
          params: { path: { id } },
          body: { email, role: inviteRole },
        }),
      ),
    onSuccess: (res) => {
      setLink(res.url);
      setEmail('');
    },
  });
  const remove = useMutation({
    mutationFn: (userId: string) =>
      unwrap(api.DELETE('/api/organizations/{id}/members/{userId}', { params: { path: { id, userId } } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['organizations'] }),
  });
  const errors = fieldErrors(invite.error, ['email', 'role']);
  const titleId = `org-${id}`;
  return (
    <section aria-labelledby={titleId} className="card">
      <h2 id={titleId}>
        {name} <span className="badge">{role}</span>
      </h2>
      <h3>Members</h3>
      <ErrorNotice error={members.error} />
      {members.data && (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Joined</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {members.data.map((m) => (
                <tr key={m.userId}>
                  <th scope="row">{m.email}</th>
                  <td>{m.role}</td>
                  <td>{when(m.joinedAt)}</td>
                  <td>
                    {(role === 'owner' || m.userId === me?.id) && (
                      <button
                        type="button"
                        className="secondary small"
                        onClick={() => remove.mutate(m.userId)}
                        aria-label={m.userId === me?.id ? `Leave ${name}` : `Remove ${m.email}`}
                      >
                        {m.userId === me?.id ? 'Leave' : 'Remove'}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ErrorNotice error={remove.error} />
      {role === 'owner' && (
        <>
          <h3>Invite someone</h3>
          <form
            className="row wrap"
            onSubmit={(e) => {
              e.preventDefault();
              setLink(undefined);
              invite.mutate();
            }}
          >
            <Field
              label="Email"
              type="email"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              error={errors.byField.email}
            />
            <div className="field">
              <label htmlFor={`${titleId}-role`}>Role</label>
              <select
                id={`${titleId}-role`}
                value={inviteRole}
                onChange={(e) => setInviteRole(e.target.value === 'owner' ? 'owner' : 'member')}
              >
                <option value="member">Member</option>
                <option value="owner">Owner</option>
              </select>
            </div>
            <button type="submit" disabled={invite.isPending}>
              {invite.isPending ? 'Creating link…' : 'Create invitation link'}
            </button>
          </form>
          <ErrorNotice error={errors.general} />
          {link && (
            <div className="notice notice-ok" role="status">
              <p>Send this link to the person you invite (no mail is sent). It works once.</p>
              <div className="row">
                <code className="secret" data-testid="invite-link">
                  {link}
                </code>
                <CopyButton value={link} label="Copy link" />
              </div>
            </div>
          )}
        </>
      )}
    </section>
  );
}
