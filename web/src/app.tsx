/**
 * The portal's shell: the session (sign-in until there is one), the header and the route table that
 * picks a page for the address. The one place that knows every page.
 */
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { ApiClient, type Account, type Session } from '../../src/client/api-client.js';
import { EnvironmentPage } from './environment/environment-page.js';
import { AppPage } from './pages/app-page.js';
import { AppsPage } from './pages/apps-page.js';
import { BuildPage } from './pages/build-page.js';
import { EventNotificationsPage } from './pages/event-notifications-page.js';
import { MembersPage } from './pages/members-page.js';
import { ProfilePage } from './pages/profile-page.js';
import { SignInPage } from './pages/sign-in-page.js';
import { PortalContext } from './portal/portal-context.js';
import type { Params } from './portal/route-params.js';
import { Link, navigate, usePath } from './portal/router.js';
import { xhrUpload } from './xhr-upload.js';

const client = new ApiClient({ upload: xhrUpload });

/**
 * The portal's pages, first match wins. Paths follow the API's resource names, so the page of
 * `accounts/a/apps/x/environments/e` is at `/accounts/a/apps/x/environments/e`.
 */
const ROUTES: readonly { pattern: string; page: (params: Params) => ReactNode }[] = [
  { pattern: '/profile', page: () => <ProfilePage /> },
  { pattern: '/accounts/:a', page: (p) => <AppsPage key={p.a} account={p.a ?? ''} /> },
  { pattern: '/accounts/:a/members', page: (p) => <MembersPage account={p.a ?? ''} /> },
  { pattern: '/accounts/:a/events', page: (p) => <EventNotificationsPage account={p.a ?? ''} /> },
  { pattern: '/accounts/:a/apps/:app', page: (p) => <AppPage account={p.a ?? ''} app={p.app ?? ''} /> },
  {
    pattern: '/accounts/:a/apps/:app/environments/:env',
    page: (p) => <EnvironmentPage key={p.env} params={p} tab="" />,
  },
  {
    pattern: '/accounts/:a/apps/:app/environments/:env/builds/:build',
    page: (p) => <BuildPage key={p.build} params={p} />,
  },
  {
    pattern: '/accounts/:a/apps/:app/environments/:env/:tab',
    page: (p) => <EnvironmentPage key={p.env} params={p} tab={p.tab ?? ''} />,
  },
];

/** The route's params when `path` matches `pattern`. */
function match(pattern: string, path: string): Params | undefined {
  const want = pattern.split('/');
  const have = path.replace(/\/+$/, '').split('/');
  if (want.length !== have.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, part] of want.entries()) {
    const value = have[i] ?? '';
    if (part.startsWith(':')) {
      if (value === '') return undefined;
      params[part.slice(1)] = decodeURIComponent(value);
    } else if (part !== value) return undefined;
  }
  return params;
}

/** The portal: the sign-in page until there is a session, then the page of the address. */
export function App() {
  const [session, setSession] = useState<Session | undefined | 'loading'>('loading');
  const [accounts, setAccounts] = useState<Account[]>();
  const [problem, setProblem] = useState<string>();

  const loadAccounts = useCallback(() => {
    client.listAccounts().then(setAccounts, (error: unknown) => {
      setProblem(String(error));
    });
  }, []);

  useEffect(() => {
    client.currentSession().then(setSession, (error: unknown) => {
      setProblem(error instanceof Error ? error.message : String(error));
      setSession(undefined);
    });
  }, []);
  useEffect(() => {
    if (session !== undefined && session !== 'loading') loadAccounts();
  }, [session, loadAccounts]);

  if (session === 'loading') return <p className="loading">Loading…</p>;
  if (session === undefined)
    return (
      <>
        {problem !== undefined && <p role="alert">{problem}</p>}
        <SignInPage client={client} onSignedIn={setSession} />
      </>
    );
  const signOut = () => {
    void client.signOut().finally(() => {
      setSession(undefined);
      setAccounts(undefined);
      navigate('/', { replace: true });
    });
  };
  return (
    <>
      <a className="skip" href="#content">
        Skip to the page
      </a>
      <header className="top">
        <Link to="/" className="brand">
          Atoll
        </Link>
        {accounts !== undefined && <AccountSwitcher accounts={accounts} />}
        <nav aria-label="Your profile" className="user">
          <Link to="/profile">{session.user.email}</Link>
          <button type="button" className="secondary" onClick={signOut}>
            Sign out
          </button>
        </nav>
      </header>
      <main id="content">
        {problem !== undefined && <p role="alert">{problem}</p>}
        {accounts === undefined ? (
          <p className="loading">Loading accounts…</p>
        ) : (
          <PortalContext.Provider value={{ client, session, accounts, reloadAccounts: loadAccounts }}>
            <Page accounts={accounts} />
          </PortalContext.Provider>
        )}
      </main>
    </>
  );
}

/** The account of the page's path: choosing another opens its applications. */
function AccountSwitcher(props: { accounts: readonly Account[] }) {
  const path = usePath();
  const current = /^\/accounts\/([^/]+)/.exec(path)?.[1];
  if (props.accounts.length === 0) return null;
  return (
    <nav aria-label="Account" className="account-switcher">
      <label htmlFor="account">Account</label>
      <select
        id="account"
        value={current === undefined ? '' : decodeURIComponent(current)}
        onChange={(e) => {
          navigate(`/accounts/${encodeURIComponent(e.target.value)}`);
        }}
      >
        {current === undefined && <option value="">Choose…</option>}
        {props.accounts.map((a) => (
          <option key={a.accountId} value={a.accountId}>
            {a.accountId} ({a.role})
          </option>
        ))}
      </select>
    </nav>
  );
}

function Page(props: { accounts: readonly Account[] }) {
  const path = usePath();
  const first = props.accounts[0];
  useEffect(() => {
    if (path === '/' && first !== undefined) navigate(`/accounts/${first.accountId}`, { replace: true });
  }, [path, first]);

  if (path === '/') {
    if (first === undefined)
      return (
        <p className="empty">
          You are not a member of any account yet. Ask an owner to add you, or an operator to create one with{' '}
          <code>atoll admin accounts create</code>.
        </p>
      );
    return null;
  }
  for (const route of ROUTES) {
    const params = match(route.pattern, path);
    if (params !== undefined) return route.page(params);
  }
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        There is no page at <code>{path}</code>. <Link to="/">Go to your applications</Link>.
      </p>
    </section>
  );
}
