// The secret a deployment's status callbacks are signed with. It is the account's (every deployment
// the user bought shares it), so it is fetched only when asked for and dropped again on Hide.
import { useMutation } from '@tanstack/react-query';
import { fetchCallbackSecret } from '../api/accounts';
import { useSession } from '../api/session';
import { CopyButton } from './CopyButton';
import { ErrorNotice } from './ErrorNotice';

export function CallbackSecret({ buyerId }: { buyerId: string }) {
  const session = useSession();
  const reveal = useMutation({ mutationFn: fetchCallbackSecret });
  // An organization's deployment bought by another member signs with that member's secret.
  if (session.data && session.data.user.id !== buyerId) {
    return (
      <p className="muted small">
        Signed with the secret of the member who bought this deployment; only they can reveal it.
      </p>
    );
  }
  return (
    <div className="stack">
      {reveal.data ? (
        <>
          <code className="secret secret-block" data-testid="callback-secret">
            {reveal.data}
          </code>
          <div className="row">
            <CopyButton value={reveal.data} label="Copy secret" />
            <button type="button" className="secondary" onClick={() => reveal.reset()}>
              Hide
            </button>
          </div>
        </>
      ) : (
        <div>
          <button type="button" className="secondary" disabled={reveal.isPending} onClick={() => reveal.mutate()}>
            {reveal.isPending ? 'Revealing…' : 'Reveal'}
          </button>
        </div>
      )}
      <ErrorNotice error={reveal.error} />
      <p className="muted small">
        Your account's secret, shared by all its deployments: verify each callback's webhook-id, webhook-timestamp and
        webhook-signature headers with it, e.g. with a Standard Webhooks library.
      </p>
    </div>
  );
}
