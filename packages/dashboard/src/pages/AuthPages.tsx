// Sign in and sign up (an invitation link fills in its token). Both end on the page asked for.
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { api, setCsrfToken, unwrap } from '../api/client';
import { useResetSession, useSession } from '../api/session';
import { ErrorNotice, fieldErrors } from '../components/ErrorNotice';
import { Field } from '../components/Field';

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

export function SignInPage() {
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  const navigate = useNavigate();
  const reset = useResetSession();
  const session = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const login = useMutation({
    mutationFn: () => unwrap(api.POST('/api/auth/login', { body: { email, password } })),
    onSuccess: async (res) => {
      setCsrfToken(res.csrfToken);
      await reset();
      navigate(next);
    },
  });
  if (session.data) return <Navigate to={next} replace />;
  const errors = fieldErrors(login.error, FIELDS);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate();
  };
  return (
    <AuthFrame title="Sign in">
      {invitedTo(next) && <p className="notice">Sign in, or create an account, to accept your invitation.</p>}
      <form onSubmit={submit} noValidate>
        <Field
          label="Email"
          type="email"
          autoComplete="email"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={errors.byField.email}
        />
        <Field
          label="Password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={errors.byField.password}
        />
        <ErrorNotice error={errors.general} />
        <button type="submit" disabled={login.isPending}>
          {login.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p>
        No account yet? <Link to={`/signup${params.size ? `?${params}` : ''}`}>Create one</Link>
      </p>
    </AuthFrame>
  );
}

export function SignUpPage() {
  const [params] = useSearchParams();
  const next = safeNext(params.get('next'));
  // An organization's invitation link also opens sign-up for its email when SIGNUP=closed.
  const invitation = params.get('invitation') ?? invitedTo(next);
  const navigate = useNavigate();
  const reset = useResetSession();
  const session = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signup = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/auth/signup', { body: { email, password, ...(invitation ? { invitation } : {}) } })),
    onSuccess: async (res) => {
      setCsrfToken(res.csrfToken);
      await reset();
      navigate(next);
    },
  });
  if (session.data) return <Navigate to={next} replace />;
  const errors = fieldErrors(signup.error, FIELDS);
  return (
    <AuthFrame title="Create your account">
      {invitation && <p className="notice">You were invited: this link lets you sign up.</p>}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          signup.mutate();
        }}
        noValidate
      >
        <Field
          label="Email"
          type="email"
          autoComplete="email"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={errors.byField.email}
        />
        <Field
          label="Password"
          hint="At least 10 characters."
          type="password"
          autoComplete="new-password"
          required
          minLength={10}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={errors.byField.password}
        />
        <ErrorNotice error={errors.general} />
        <button type="submit" disabled={signup.isPending}>
          {signup.isPending ? 'Creating…' : 'Create account'}
        </button>
      </form>
      <p>
        Already have an account? <Link to={`/signin${params.size ? `?${params}` : ''}`}>Sign in</Link>
      </p>
    </AuthFrame>
  );
}
