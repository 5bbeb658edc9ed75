/** The page of one application (`/accounts/{a}/apps/{app}`): its environments and its deletion. */
import { useCallback, useState, type SyntheticEvent } from 'react';
import type { Environment } from '../../../src/client/api-client.js';
import { draftFields, EnvironmentFields, type EnvironmentDraft } from '../environment/environment-fields.js';
import { useAccount, usePortal } from '../portal/portal-context.js';
import { Link, navigate, pageOf } from '../portal/router.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { FormError, LoadError } from '../ui/errors.js';
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
      <h2>Environments</h2>
      <LoadError error={environments.error} />
      {environments.data === undefined ? (
        environments.error === undefined && <p className="loading">Loading environments…</p>
      ) : environments.data.length === 0 ? (
        <p className="empty">No environments yet. Create one below, then upload a .zip of the code to it.</p>
      ) : (
        environments.data.map((environment) => (
          <EnvironmentCard key={environment.name} environment={environment} />
        ))
      )}
      {role !== 'viewer' && (
        <CreateEnvironmentForm account={account} app={app} onCreated={environments.reload} />
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

function EnvironmentCard(props: { environment: Environment }) {
  const { environment } = props;
  const live = environment.build !== '';
  return (
    <article className="card" aria-label={environment.displayName}>
      <h3>
        <Link to={pageOf(environment.name)}>{environment.displayName}</Link>
      </h3>
      <p>
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
      </p>
    </article>
  );
}

function CreateEnvironmentForm(props: { account: string; app: string; onCreated: () => void }) {
  const { client } = usePortal();
  const [draft, setDraft] = useState(EMPTY);
  const create = useAction(
    () => client.createEnvironment(props.account, props.app, draft),
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
      <FormError error={create.error} fields={draftFields(draft)} />
      <button type="submit" disabled={create.busy}>
        Create environment
      </button>
    </form>
  );
}
