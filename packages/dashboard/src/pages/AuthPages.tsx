// Sign in and sign up (an invitation link fills in its token). Both end on the page asked for.
import { useMutation } from '@tanstack/react-query';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { api, setCsrfToken, unwrap } from '../api/client';
import { useResetSession, useSession } from '../api/session';
import { ErrorNotice, fieldErrors } from '../components/ErrorNotice';
import { Field } from '../components/Field';
import { Form } from '../forms/Form';
import { SubmitButton } from '../forms/SubmitButton';
import { useFieldValues } from '../forms/useFieldValues';

/** Only a path of this site: an open redirect through ?next= would hand the session's page elsewhere. */
function safeNext(next: string | null): string {
  // "//host" and "/\host" both leave the site in a browser.
  return next && /^\/(?![/\\])/.test(next) ? next : '/';
}

/** The token of an organization invitation (/invite/<token>) the user is on the way to. */
function invitedTo(next: string): string | undefined {
  return /^\/invite\/([^/?#]+)$/.exec(next)?.[1];
}

function AuthFrame({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <main id="main" className="auth">
      <div className="card">
        <p className="brand">⚓ Berth</p>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}

const FIELDS = ['email', 'password'] as const;

/** A new password's field: the server's minimum said and checked, and the browser may suggest one. */
const NEW_PASSWORD = { hint: 'At least 10 characters.', autoComplete: 'new-password', minLength: 10 };

/** The account's email, as sign-in, sign-up and a reset link ask for it. */
function EmailField(props: { value: string; onChange(e: React.ChangeEvent<HTMLInputElement>): void; error?: string }) {
  return <Field label="Email" type="email" autoComplete="email" required {...props} />;
}

type Credentials = { email: string; password: string };

/**
 * Sign-in and sign-up alike: the email and password form whose call, once it answers, starts the
 * session (its CSRF token kept, the session re-read) and goes on to the page asked for.
 */
function CredentialsForm(p: {
  next: string;
  call(credentials: Credentials): Promise<{ csrfToken: string }>;
  password: { hint?: string; autoComplete: string; minLength?: number };
  submit: string;
  busy: string;
}) {
  const navigate = useNavigate();
  const reset = useResetSession();
  const { values, bind } = useFieldValues({ email: '', password: '' });
  const start = useMutation({
    mutationFn: () => p.call(values),
    onSuccess: async (res) => {
      setCsrfToken(res.csrfToken);
      await reset();
      navigate(p.next);
    },
  });
  const errors = fieldErrors(start.error, FIELDS);
  return (
    <Form onSubmit={() => start.mutate()} noValidate>
      <EmailField {...bind('email')} error={errors.byField.email} />
      <Field
        label="Password"
        type="password"
        required
        {...p.password}
        {...bind('password')}
        error={errors.byField.password}
      />
      <ErrorNotice error={errors.general} />
      <SubmitButton pending={start.isPending} busy={p.busy}>
        {p.submit}
      </SubmitButton>
    </Form>
  );
}

export function SignInPage() {
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const session = useSession();
  if (session.data) return <Navigate to={next} replace />;
  return (
    <AuthFrame title="Sign in">
      {invitedTo(next) && <p className="notice">Sign in, or create an account, to accept your invitation.</p>}
      <CredentialsForm
        next={next}
        call={(body) => unwrap(api.POST('/api/auth/login', { body }))}
        password={{ autoComplete: 'current-password' }}
        submit="Sign in"
        busy="Signing in…"
      />
      <p>
        <Link to="/forgot-password">Forgot your password?</Link>
      </p>
      <p>
        No account yet? <Link to={`/signup${params.size ? `?${params}` : ''}`}>Create one</Link>
      </p>
    </AuthFrame>
  );
}

export function ForgotPasswordPage() {
  const { values, bind } = useFieldValues({ email: '' });
  const ask = useMutation({
    mutationFn: () => unwrap(api.POST('/api/auth/password-reset', { body: { email: values.email } })),
  });
  const errors = fieldErrors(ask.error, ['email'] as const);
  return (
    <AuthFrame title="Set a new password">
      {ask.data?.mailed ? (
        <p className="notice" role="status">
          If {values.email} has an account here, a link to set a new password is on its way. It works for an hour.
        </p>
      ) : ask.data ? (
        <p className="notice" role="status">
          This server does not send mail. Ask its operator for a link:{' '}
          <code>npx berth admin reset-link --email {values.email}</code>
        </p>
      ) : (
        <Form onSubmit={() => ask.mutate()} noValidate>
          <EmailField {...bind('email')} error={errors.byField.email} />
          <ErrorNotice error={errors.general} />
          <SubmitButton pending={ask.isPending} busy="Sending…">
            Send me a link
          </SubmitButton>
        </Form>
      )}
      <p>
        <Link to="/signin">Back to sign in</Link>
      </p>
    </AuthFrame>
  );
}

/** The link's token is in its #fragment: it never reaches a server log or a Referer header. */
export function ResetPasswordPage() {
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token') ?? '';
  const { values, bind } = useFieldValues({ password: '' });
  const set = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/auth/password-reset/complete', { body: { token, password: values.password } })),
  });
  const errors = fieldErrors(set.error, ['password'] as const);
  if (set.isSuccess)
    return (
      <AuthFrame title="Password set">
        <p className="notice" role="status">
          Your new password is set, and every other session has ended.
        </p>
        <p>
          <Link to="/signin">Sign in</Link>
        </p>
      </AuthFrame>
    );
  return (
    <AuthFrame title="Choose a new password">
      {!token && <p className="notice">This link is incomplete. Open the whole link from the mail or the operator.</p>}
      <Form onSubmit={() => set.mutate()} noValidate>
        <Field
          label="New password"
          type="password"
          {...NEW_PASSWORD}
          required
          {...bind('password')}
          error={errors.byField.password}
        />
        <ErrorNotice error={errors.general} />
        <SubmitButton pending={set.isPending} busy="Saving…">
          Set the password
        </SubmitButton>
      </Form>
    </AuthFrame>
  );
}

export function SignUpPage() {
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  // An organization's invitation link also opens sign-up for its email when SIGNUP=closed.
  const invitation = params.get('invitation') ?? invitedTo(next);
  const session = useSession();
  if (session.data) return <Navigate to={next} replace />;
  return (
    <AuthFrame title="Create your account">
      {invitation && <p className="notice">You were invited: this link lets you sign up.</p>}
      <CredentialsForm
        next={next}
        call={(body) =>
          unwrap(api.POST('/api/auth/signup', { body: { ...body, ...(invitation ? { invitation } : {}) } }))
        }
        password={NEW_PASSWORD}
        submit="Create account"
        busy="Creating…"
      />
      <p>
        Already have an account? <Link to={`/signin${params.size ? `?${params}` : ''}`}>Sign in</Link>
      </p>
    </AuthFrame>
  );
}
