/** The page shown until there is a session: it signs in and hands the session to the shell. */
import { useState, type SyntheticEvent } from 'react';
import { asApiError, type ApiClient, type Session } from '../../../src/client/api-client.js';

/** Email and password; the API's answer (wrong password, locked out) is shown above the button. */
export function SignInPage(props: { client: ApiClient; onSignedIn: (session: Session) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    props.client.signIn(email, password).then(props.onSignedIn, (failure: unknown) => {
      setError(asApiError(failure).message);
      setBusy(false);
    });
  };

  return (
    <main className="sign-in">
      <h1>Sign in to Atoll</h1>
      <form onSubmit={submit} aria-describedby={error === undefined ? undefined : 'sign-in-error'}>
        <label htmlFor="email">Email address</label>
        <input
          id="email"
          type="email"
          autoComplete="username"
          required
          value={email}
          onChange={(e) => {
            setEmail(e.target.value);
          }}
        />
        <label htmlFor="password">Password</label>
        <input
          id="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => {
            setPassword(e.target.value);
          }}
        />
        {error !== undefined && (
          <p id="sign-in-error" role="alert" className="error">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
