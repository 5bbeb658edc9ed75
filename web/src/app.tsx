import { useEffect, useState } from 'react';
import { ApiClient, type Session } from '../../src/client/api-client.js';
import { AccountsPage } from './accounts-page.js';
import { SignInPage } from './sign-in-page.js';
import { xhrUpload } from './xhr-upload.js';

const client = new ApiClient({ upload: xhrUpload });

/** The portal: the sign-in page until there is a session, then the accounts the user belongs to. */
export function App() {
  const [session, setSession] = useState<Session | undefined | 'loading'>('loading');
  const [problem, setProblem] = useState<string>();

  useEffect(() => {
    client.currentSession().then(setSession, (error: unknown) => {
      setProblem(error instanceof Error ? error.message : String(error));
      setSession(undefined);
    });
  }, []);

  if (session === 'loading') return <p className="loading">Loading…</p>;
  if (session === undefined)
    return (
      <>
        {problem !== undefined && <p role="alert">{problem}</p>}
        <SignInPage client={client} onSignedIn={setSession} />
      </>
    );
  return (
    <>
      <header className="top">
        <strong>Atoll</strong>
        <span className="user">{session.user.email}</span>
        <button
          type="button"
          onClick={() => {
            void client.signOut().finally(() => {
              setSession(undefined);
            });
          }}
        >
          Sign out
        </button>
      </header>
      <main>
        <AccountsPage client={client} />
      </main>
    </>
  );
}
