import { useCallback, useEffect, useState, type SyntheticEvent } from 'react';
import {
  asApiError,
  type Account,
  type ApiClient,
  type ApiError,
  type App,
} from '../../src/client/api-client.js';
import { AppPage } from './app-page.js';

const REGIONS = ['regions/US-C', 'regions/EU-W', 'regions/UK', 'regions/AUS-SE'];

/** The accounts the user belongs to; the chosen one's applications, and a form to create one. */
export function AccountsPage(props: { client: ApiClient }) {
  const { client } = props;
  const [accounts, setAccounts] = useState<Account[]>();
  const [account, setAccount] = useState<string>();
  const [problem, setProblem] = useState<string>();

  useEffect(() => {
    client.listAccounts().then(
      (list) => {
        setAccounts(list);
        setAccount(list[0]?.accountId);
      },
      (error: unknown) => {
        setProblem(String(error));
      },
    );
  }, [client]);

  if (problem !== undefined) return <p role="alert">{problem}</p>;
  if (accounts === undefined) return <p className="loading">Loading accounts…</p>;
  if (accounts.length === 0)
    return (
      <p className="empty">
        You are not a member of any account yet. Ask an owner to add you, or an operator to create one with{' '}
        <code>atoll admin accounts create</code>.
      </p>
    );
  return (
    <>
      <label htmlFor="account">Account</label>{' '}
      <select
        id="account"
        value={account}
        onChange={(e) => {
          setAccount(e.target.value);
        }}
      >
        {accounts.map((a) => (
          <option key={a.accountId} value={a.accountId}>
            {a.accountId} ({a.role})
          </option>
        ))}
      </select>
      {account !== undefined && <AppsSection key={account} client={client} account={account} />}
    </>
  );
}

function AppsSection(props: { client: ApiClient; account: string }) {
  const { client, account } = props;
  const [apps, setApps] = useState<App[]>();
  const [problem, setProblem] = useState<string>();
  const [open, setOpen] = useState<string>();

  const reload = useCallback(() => {
    client.listApps(account).then(setApps, (error: unknown) => {
      setProblem(String(error));
    });
  }, [client, account]);
  useEffect(reload, [reload]);

  if (open !== undefined)
    return (
      <AppPage
        client={client}
        account={account}
        app={open}
        onBack={() => {
          setOpen(undefined);
        }}
      />
    );
  return (
    <section aria-labelledby="apps-heading">
      <h2 id="apps-heading">Applications</h2>
      {problem !== undefined && <p role="alert">{problem}</p>}
      {apps === undefined ? (
        <p className="loading">Loading applications…</p>
      ) : apps.length === 0 ? (
        <p className="empty">
          No applications yet. Create the first one below, then upload a .zip of its code.
        </p>
      ) : (
        <ul className="apps">
          {apps.map((app) => (
            <li key={app.appId}>
              <button
                type="button"
                className="link"
                onClick={() => {
                  setOpen(app.appId);
                }}
              >
                {app.appId}
              </button>{' '}
              <span className="muted">{app.region}</span>
            </li>
          ))}
        </ul>
      )}
      <CreateAppForm client={client} account={account} onCreated={reload} />
    </section>
  );
}

function CreateAppForm(props: { client: ApiClient; account: string; onCreated: () => void }) {
  const [appId, setAppId] = useState('');
  const [region, setRegion] = useState(REGIONS[0] ?? '');
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);

  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    props.client.createApp(props.account, appId, region).then(
      () => {
        setAppId('');
        setBusy(false);
        props.onCreated();
      },
      (failure: unknown) => {
        setError(asApiError(failure));
        setBusy(false);
      },
    );
  };
  const appIdError = error?.violationOf('appId');
  const regionError = error?.violationOf('region');
  const otherError = error !== undefined && appIdError === undefined && regionError === undefined;

  return (
    <form onSubmit={submit} className="create-app">
      <h3>Create an application</h3>
      <label htmlFor="app-id">Application id</label>
      <input
        id="app-id"
        value={appId}
        aria-invalid={appIdError !== undefined}
        aria-describedby={appIdError === undefined ? undefined : 'app-id-error'}
        onChange={(e) => {
          setAppId(e.target.value);
        }}
      />
      {appIdError !== undefined && (
        <p id="app-id-error" className="error">
          {appIdError}
        </p>
      )}
      <label htmlFor="region">Region</label>
      <select
        id="region"
        value={region}
        aria-invalid={regionError !== undefined}
        onChange={(e) => {
          setRegion(e.target.value);
        }}
      >
        {REGIONS.map((r) => (
          <option key={r}>{r}</option>
        ))}
      </select>
      {regionError !== undefined && <p className="error">{regionError}</p>}
      {otherError && (
        <p role="alert" className="error">
          {error.message}
        </p>
      )}
      <button type="submit" disabled={busy}>
        Create
      </button>
    </form>
  );
}
