// Signing in, accepting an invitation and resetting a password: the three ways into a session.
import { type FormEvent, useState } from 'react';
import { api, errorText, must } from '../api/client';
import { Message, useLoad } from '../components/ui';
import { navigate, useLocation } from '../router';
import { session } from '../session';

function AuthCard({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <main className="auth">
      <div className="auth-card">
        <p className="brand">Quire</p>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}

export function SignIn() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const res = await api.POST('/v1/auth/login', { body: { email, password } });
    setBusy(false);
    if (!res.data) return setError(errorText(res.error, res.response.status));
    // The sign-in screen stands in for whatever screen was asked for (main.tsx): signed in, that
    // screen shows, so a session that ended mid-task returns to the task.
    session.signIn(res.data.access_token);
  };
  const ended = session.get().ended;
  return (
    <AuthCard title="Sign in">
      {ended && <p className="message notice" role="status">Your session ended. Sign in again to carry on where you were.</p>}
      <form onSubmit={submit}>
        <label>
          Email
          <input type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} autoFocus />
        </label>
        <label>
          Password
          <input type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        <Message error={error} />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </AuthCard>
  );
}

/** Accept an invitation or reset a password: both take the token from the link and a new password. */
export function RedeemToken({ kind }: { kind: 'invite' | 'reset' }) {
  const { query } = useLocation();
  const token = query.get('token') ?? '';
  const peek = useLoad(async () => {
    if (!token) throw new Error('This link has no token. Open the link from your invitation or reset message again.');
    return kind === 'invite'
      ? must(await api.GET('/v1/auth/invites/{raw_token}', { params: { path: { raw_token: token } } }))
      : must(await api.GET('/v1/auth/reset-tokens/{raw_token}', { params: { path: { raw_token: token } } }));
  }, [token]);
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (password !== confirm) return setError('The two passwords differ.');
    const res =
      kind === 'invite'
        ? await api.POST('/v1/auth/accept-invite', { body: { token, new_password: password } })
        : await api.POST('/v1/auth/reset-password', { body: { token, new_password: password } });
    if (!res.data) return setError(errorText(res.error, res.response.status));
    const answer = res.data as { access_token?: string };
    if (answer.access_token) session.signIn(answer.access_token);
    navigate(answer.access_token ? '/' : '/signin', true);
  };
  const info = peek.data as { email?: string; tenant_name?: string; tenant_id?: string } | undefined;
  return (
    <AuthCard title={kind === 'invite' ? 'Accept your invitation' : 'Choose a new password'}>
      {peek.error ? (
        <Message error={peek.error} />
      ) : (
        <form onSubmit={submit}>
          {info?.email && (
            <p>
              For <strong>{info.email}</strong>
              {info.tenant_name ? ` in ${info.tenant_name}` : ''}.
            </p>
          )}
          <label>
            New password (at least 12 characters)
            <input type="password" autoComplete="new-password" minLength={12} required value={password} onChange={(e) => setPassword(e.target.value)} />
          </label>
          <label>
            Repeat the password
            <input type="password" autoComplete="new-password" minLength={12} required value={confirm} onChange={(e) => setConfirm(e.target.value)} />
          </label>
          <Message error={error} />
          <button type="submit" className="primary">
            {kind === 'invite' ? 'Accept and sign in' : 'Set password and sign in'}
          </button>
        </form>
      )}
    </AuthCard>
  );
}
