/** The page of one application (`/accounts/{a}/apps/{app}`): its environments and its deletion. */
import { useCallback, useState, type SyntheticEvent } from 'react';
import type { Environment } from '../../../src/client/api-client.js';
import { draftFields, EnvironmentFields, type EnvironmentDraft } from '../environment/environment-fields.js';
import { useAccount, usePortal } from '../portal/portal-context.js';
import { Link, navigate, pageOf } from '../portal/router.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { RepositoryCard } from '../repository/repository-card.js';
import { FieldError, FormError, LoadError } from '../ui/errors.js';
import { useAction, useLoad } from '../ui/use-load.js';

const EMPTY: EnvironmentDraft = { displayName: '', wpEnvironment: '', shellVariables: [] };

/** One application: its environments with their live URLs, a form to create one, and its deletion. */
export function AppPage(props: { account: string; app: string }) {
  const { client } = usePortal();
  const { account, app } = props;
  const role = useAccount(account)?.role;
  const environments = useLoad(
    useCallback(() => client.listEnvironments(account, app), [client, account, app]),
  );
  const details = useLoad(useCallback(() => client.getApp(account, app), [client, account, app]));
  const repository = details.data?.repository;
  // Previews are listed under their parent, not beside it.
  const parents = environments.data?.filter((environment) => environment.parentEnvironment === '');
  const previewsOf = (parent: Environment) =>
    environments.data?.filter((environment) => environment.parentEnvironment === parent.name) ?? [];
  const remove = useAction(
    () => client.deleteApp(account, app),
    () => {
      navigate(`/accounts/${encodeURIComponent(account)}`);
    },
  );

  return (
    <section aria-labelledby="app-heading">
      <p className="crumbs">
        <Link to={`/accounts/${encodeURIComponent(account)}`}>← {account}</Link>
      </p>
      <h1 id="app-heading">{app}</h1>
      <LoadError error={details.error} />
      {repository !== undefined && (
        <RepositoryCard
          account={account}
          app={app}
          repository={repository}
          canManage={role === 'owner' || role === 'developer'}
          isOwner={role === 'owner'}
          onChanged={details.reload}
        />
      )}
      <h2>Environments</h2>
      <LoadError error={environments.error} />
      {parents === undefined ? (
        environments.error === undefined && <p className="loading">Loading environments…</p>
      ) : parents.length === 0 ? (
        <p className="empty">
          {repository === undefined
            ? 'No environments yet. Create one below, then upload a .zip of the code to it.'
            : 'No environments yet. Create one below for a branch: its first build starts at once.'}
        </p>
      ) : (
        parents.map((environment) => (
          <EnvironmentCard
            key={environment.name}
            environment={environment}
            previews={previewsOf(environment)}
          />
        ))
      )}
      {role !== 'viewer' && details.data !== undefined && (
        <CreateEnvironmentForm
          account={account}
          app={app}
          fromRepository={repository !== undefined}
          onCreated={environments.reload}
        />
      )}
      {role === 'owner' && (
        <section className="card danger-zone" aria-labelledby="delete-app-heading">
          <h3 id="delete-app-heading">Delete the application</h3>
          <ConfirmButton
            label="Delete application"
            confirmLabel={`Delete ${app} and its environments`}
            warning={`${app}, its environments, builds and domains are deleted, and its sites stop answering. This cannot be undone.`}
            busy={remove.busy}
            onConfirm={remove.run}
          />
          <FormError error={remove.error} />
        </section>
      )}
    </section>
  );
}

function EnvironmentCard(props: { environment: Environment; previews: readonly Environment[] }) {
  const { environment, previews } = props;
  return (
    <article className="card" aria-label={environment.displayName}>
      <h3>
        <Link to={pageOf(environment.name)}>{environment.displayName}</Link>
        {environment.branch !== 'uploadable' && <span className="muted"> · {environment.branch}</span>}
      </h3>
      <p>
        <LiveLine environment={environment} />
      </p>
      {environment.previews.enabled && previews.length === 0 && (
        <p className="muted">
          Previews on: a pull request against {environment.branch} gets its own environment.
        </p>
      )}
      {previews.length > 0 && (
        <ul className="previews" aria-label={`Previews of ${environment.displayName}`}>
          {previews.map((preview) => (
            <li key={preview.name}>
              <Link to={pageOf(preview.name)}>{preview.displayName}</Link>{' '}
              <span className="muted">{preview.branch}</span> <LiveLine environment={preview} />
            </li>
          ))}
        </ul>
      )}
    </article>
  );
}

/** Where the environment is live, or that nothing is yet. */
function LiveLine(props: { environment: Environment }) {
  const { environment } = props;
  const live = environment.build !== '';
  return (
    <span className="live-line">
      {live ? (
        <>
          <span className="badge live">Live</span>{' '}
          <a href={environment.url} target="_blank" rel="noreferrer">
            {environment.url}
          </a>
        </>
      ) : (
        <span className="badge">Nothing deployed yet</span>
      )}
    </span>
  );
}

function CreateEnvironmentForm(props: {
  account: string;
  app: string;
  /** A repository application's environment builds a branch, and may preview its pull requests. */
  fromRepository: boolean;
  onCreated: () => void;
}) {
  const { client } = usePortal();
  const [draft, setDraft] = useState(EMPTY);
  const [branch, setBranch] = useState('main');
  const [previews, setPreviews] = useState(false);
  const create = useAction(
    () =>
      client.createEnvironment(
        props.account,
        props.app,
        props.fromRepository ? { ...draft, branch, previews: { enabled: previews } } : draft,
      ),
    () => {
      setDraft(EMPTY);
      props.onCreated();
    },
  );
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    create.run();
  };
  return (
    <form onSubmit={submit} className="card">
      <h3>Create an environment</h3>
      <EnvironmentFields idPrefix="new" draft={draft} onChange={setDraft} error={create.error} />
      {props.fromRepository && (
        <>
          <label htmlFor="new-branch">Branch</label>
          <input
            id="new-branch"
            value={branch}
            onChange={(e) => {
              setBranch(e.target.value);
            }}
          />
          <FieldError error={create.error} field="branch" />
          <p className="choice">
            <label className="inline">
              <input
                type="checkbox"
                checked={previews}
                onChange={(e) => {
                  setPreviews(e.target.checked);
                }}
              />{' '}
              Preview environments: each pull request against this branch gets its own, with these variables
            </label>
          </p>
          <FieldError error={create.error} field="previews" />
        </>
      )}
      <FormError error={create.error} fields={[...draftFields(draft), 'branch', 'previews']} />
      <button type="submit" disabled={create.busy}>
        Create environment
      </button>
    </form>
  );
}
