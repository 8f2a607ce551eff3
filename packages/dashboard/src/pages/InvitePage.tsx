// An organization's invitation link (/invite/<token>): join it as the signed-in user.
import { useMutation } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { api, setActiveOrganization, unwrap } from '../api/client';
import { useResetSession, useSession } from '../api/session';
import { ErrorNotice } from '../components/ErrorNotice';

export function InvitePage() {
  const { token = '' } = useParams();
  const session = useSession().data;
  const reset = useResetSession();
  const navigate = useNavigate();
  const accept = useMutation({
    mutationFn: () => unwrap(api.POST('/api/invitations/{token}/accept', { params: { path: { token } } })),
    onSuccess: async (res) => {
      setActiveOrganization(res.organizationId);
      await reset();
      navigate('/organizations');
    },
  });
  return (
    <section className="narrow">
      <h1>Join an organization</h1>
      <p>
        You are signed in as <strong>{session?.user.email}</strong>. Joining shares the organization's deployments and
        keys with you.
      </p>
      <ErrorNotice error={accept.error} />
      <div className="row">
        <button type="button" onClick={() => accept.mutate()} disabled={accept.isPending}>
          {accept.isPending ? 'Joining…' : 'Accept invitation'}
        </button>
        <Link to="/">Not now</Link>
      </div>
    </section>
  );
}
