// Organizations: create one, see its members, invite by link (owners), remove members.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { useMembers, useOrganizations } from '../api/accounts';
import { useResetSession, useSession } from '../api/session';
import { ErrorNotice, fieldErrors } from '../components/ErrorNotice';
import { Field } from '../components/Field';
import { when } from '../components/format';
import { ShownOnce } from '../components/ShownOnce';
import { Table } from '../components/Table';
import { Form } from '../forms/Form';
import { SubmitButton } from '../forms/SubmitButton';
import { useFieldValues } from '../forms/useFieldValues';

export function OrganizationsPage() {
  const orgs = useOrganizations();
  const reset = useResetSession();
  const qc = useQueryClient();
  const { values, bind, clear } = useFieldValues({ name: '' });
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/api/organizations', { body: values })),
    onSuccess: async () => {
      clear();
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
        <Form className="row wrap" onSubmit={() => create.mutate()}>
          <Field label="Organization name" required {...bind('name')} error={errors.byField.name} />
          <SubmitButton pending={create.isPending} busy="Creating…">
            Create
          </SubmitButton>
        </Form>
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
  const { values, bind, clear } = useFieldValues({ email: '' });
  const [inviteRole, setInviteRole] = useState<'owner' | 'member'>('member');
  const [link, setLink] = useState<string | undefined>();
  const invite = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/organizations/{id}/invitations', {
          params: { path: { id } },
          body: { email: values.email, role: inviteRole },
        }),
      ),
    onSuccess: (res) => {
      setLink(res.url);
      clear();
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
        <Table columns={['Email', 'Role', 'Joined']} actions>
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
        </Table>
      )}
      <ErrorNotice error={remove.error} />
      {role === 'owner' && (
        <>
          <h3>Invite someone</h3>
          <Form
            className="row wrap"
            onSubmit={() => {
              setLink(undefined);
              invite.mutate();
            }}
          >
            <Field label="Email" type="email" required {...bind('email')} error={errors.byField.email} />
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
            <SubmitButton pending={invite.isPending} busy="Creating link…">
              Create invitation link
            </SubmitButton>
          </Form>
          <ErrorNotice error={errors.general} />
          {link && (
            <div className="notice notice-ok" role="status">
              <p>Send this link to the person you invite (no mail is sent). It works once.</p>
              <ShownOnce value={link} testId="invite-link" copyLabel="Copy link" />
            </div>
          )}
        </>
      )}
    </section>
  );
}
