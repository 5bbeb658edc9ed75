/** The account's home page (`/accounts/{a}`): its applications and the creation of one. */
import { useCallback, useState, type SyntheticEvent } from 'react';
import { AccountNav } from '../account/account-nav.js';
import { useAccount, usePortal } from '../portal/portal-context.js';
import { Link, navigate } from '../portal/router.js';
import { PROVIDER_NAMES } from '../repository/repository-card.js';
import { FieldError, FormError, LoadError } from '../ui/errors.js';
import { useAction, useLoad } from '../ui/use-load.js';

/** An account's applications, and a form to create one. */
export function AppsPage(props: { account: string }) {
  const { client } = usePortal();
  const { account } = props;
  const apps = useLoad(useCallback(() => client.listApps(account), [client, account]));
  const member = useAccount(account);

  return (
    <section aria-labelledby="apps-heading">
      <h1 id="apps-heading">{account}</h1>
      <AccountNav account={account} />
      <h2>Applications</h2>
      <LoadError error={apps.error} />
      {apps.data === undefined ? (
        apps.error === undefined && <p className="loading">Loading applications…</p>
      ) : apps.data.length === 0 ? (
        <p className="empty">
          No applications yet. Create the first one below, then upload a .zip of its code.
        </p>
      ) : (
        <ul className="apps">
          {apps.data.map((app) => (
            <li key={app.appId}>
              <Link to={`/accounts/${encodeURIComponent(account)}/apps/${encodeURIComponent(app.appId)}`}>
                {app.appId}
              </Link>{' '}
              <span className="muted">{app.region}</span>
            </li>
          ))}
        </ul>
      )}
      {member?.role !== 'viewer' && <CreateAppForm account={account} onCreated={apps.reload} />}
    </section>
  );
}

/** What a new application builds from: uploads, or a git repository's branches. */
type Source = 'upload' | 'repository';

const PROVIDERS: readonly (readonly [string, string])[] = [
  ['', 'Guess from the URL'],
  ...Object.entries(PROVIDER_NAMES),
];

function CreateAppForm(props: { account: string; onCreated: () => void }) {
  const { client } = usePortal();
  const regions = useLoad(useCallback(() => client.listRegions(), [client]));
  const [appId, setAppId] = useState('');
  const [chosenRegion, setRegion] = useState<string>();
  const [source, setSource] = useState<Source>('upload');
  const [url, setUrl] = useState('');
  const [provider, setProvider] = useState('');
  const [accessToken, setAccessToken] = useState('');
  // Until one is chosen, the region is the first the API lists.
  const region = chosenRegion ?? regions.data?.[0]?.name ?? '';
  const create = useAction(
    () =>
      client.createApp(
        props.account,
        appId,
        region,
        source === 'upload'
          ? undefined
          : {
              url: url.trim(),
              ...(provider !== '' && { provider }),
              ...(accessToken !== '' && { accessToken }),
            },
      ),
    () => {
      // A repository application is set up on its page: deploy key, webhook, first environment.
      if (source === 'repository') {
        navigate(`/accounts/${encodeURIComponent(props.account)}/apps/${encodeURIComponent(appId)}`);
        return;
      }
      setAppId('');
      props.onCreated();
    },
  );
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    create.run();
  };
  const appIdError = create.error?.violationOf('appId');
  const repositoryFields = ['repository.url', 'repository.provider', 'repository.accessToken'];

  return (
    <form onSubmit={submit} className="card">
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
      <FieldError error={create.error} field="appId" id="app-id-error" />
      <label htmlFor="region">Region</label>
      <select
        id="region"
        value={region}
        onChange={(e) => {
          setRegion(e.target.value);
        }}
      >
        {regions.data?.map((r) => (
          <option key={r.name}>{r.name}</option>
        ))}
      </select>
      <LoadError error={regions.error} />
      <FieldError error={create.error} field="region" />
      <fieldset>
        <legend>Code</legend>
        <p className="choice">
          <label className="inline">
            <input
              type="radio"
              name="source"
              checked={source === 'upload'}
              onChange={() => {
                setSource('upload');
              }}
            />{' '}
            Direct upload: the code comes as a .zip, from here or the API
          </label>
        </p>
        <p className="choice">
          <label className="inline">
            <input
              type="radio"
              name="source"
              checked={source === 'repository'}
              onChange={() => {
                setSource('repository');
              }}
            />{' '}
            A git repository: each environment builds a branch, pushes deploy, pull requests get previews
          </label>
        </p>
      </fieldset>
      {source === 'repository' && (
        <>
          <label htmlFor="repository-url">Clone URL</label>
          <input
            id="repository-url"
            className="wide"
            value={url}
            placeholder="https://github.com/owner/repo.git or git@github.com:owner/repo.git"
            onChange={(e) => {
              setUrl(e.target.value);
            }}
          />
          <FieldError error={create.error} field="repository.url" />
          <label htmlFor="repository-provider">Git host</label>
          <select
            id="repository-provider"
            value={provider}
            onChange={(e) => {
              setProvider(e.target.value);
            }}
          >
            {PROVIDERS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
          <FieldError error={create.error} field="repository.provider" />
          <label htmlFor="repository-token">Access token (private https repositories)</label>
          <input
            id="repository-token"
            type="password"
            autoComplete="off"
            value={accessToken}
            onChange={(e) => {
              setAccessToken(e.target.value);
            }}
          />
          <p className="muted">
            Stored encrypted and never shown again. An ssh URL needs none: the application gets a deploy key
            to add to the repository.
          </p>
          <FieldError error={create.error} field="repository.accessToken" />
        </>
      )}
      <FormError error={create.error} fields={['appId', 'region', ...repositoryFields]} />
      <button type="submit" disabled={create.busy || regions.data === undefined}>
        Create
      </button>
    </form>
  );
}
