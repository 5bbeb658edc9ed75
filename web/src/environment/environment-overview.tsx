/** The environment page's Overview tab: deploying, its settings and its deletion. */
import { useCallback, useState, type DragEvent, type SyntheticEvent } from 'react';
import type { Environment, Operation } from '../../../src/client/api-client.js';
import { isUnfinished, phaseLabel } from '../builds/build-summary.js';
import { useAccount, usePortal } from '../portal/portal-context.js';
import { Link, navigate, pageOf } from '../portal/router.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { FormError, LoadError } from '../ui/errors.js';
import { POLL_MS, useAction, useLoad } from '../ui/use-load.js';
import { draftFields, EnvironmentFields, type EnvironmentDraft } from './environment-fields.js';
import type { EnvironmentTabProps } from './environment-tab-props.js';

/** The environment's main tab: new code (upload, rebuilds), the cache, its settings and its deletion. */
export function EnvironmentOverview(props: EnvironmentTabProps) {
  const { environment, account } = props;
  const role = useAccount(account)?.role;
  const [followed, setFollowed] = useState<string>();
  if (role === 'viewer')
    return <p className="muted">You can look at this environment; changing it needs a developer or owner.</p>;
  const fromBranch = environment.branch !== 'uploadable';
  return (
    <>
      {environment.parentEnvironment !== '' && (
        <p className="card" role="note">
          A preview of <Link to={pageOf(environment.parentEnvironment)}>its parent environment</Link> for pull
          request #{String(environment.pullRequest ?? 0)} ({environment.branch}): new commits on the request
          rebuild it, and it is deleted when the request is closed or merged.
        </p>
      )}
      <DeploySection environment={environment} onBuild={setFollowed} />
      {followed !== undefined && <FollowedBuild build={followed} />}
      {fromBranch && environment.parentEnvironment === '' && (
        <PreviewsForm
          key={`previews-${environment.updateTime}`}
          environment={environment}
          onSaved={props.reload}
        />
      )}
      <SettingsForm key={environment.updateTime} environment={environment} onSaved={props.reload} />
      <section className="card danger-zone" aria-labelledby="delete-environment-heading">
        <h2 id="delete-environment-heading">Delete the environment</h2>
        <DeleteEnvironment environment={environment} />
      </section>
    </>
  );
}

/** An upload by picker or drop with its progress, a rebuild, a clean rebuild and a cache purge. */
function DeploySection(props: { environment: Environment; onBuild: (build: string) => void }) {
  const { client } = usePortal();
  const { environment } = props;
  const [progress, setProgress] = useState<number>();
  const [notice, setNotice] = useState<string>();
  const started = (operation: Operation) => {
    setProgress(undefined);
    if (operation.metadata.build !== undefined) props.onBuild(operation.metadata.build);
  };
  const upload = useAction(
    (file: File) =>
      client.uploadZip(environment.name, file, file.name, (sent, total) => {
        setProgress(total === 0 ? 1 : sent / total);
      }),
    started,
  );
  const rebuild = useAction((clean: boolean) => client.rebuild(environment.name, clean), started);
  const clearCache = useAction(
    () => client.clearCache(environment.name),
    () => {
      setNotice('The cache is empty: the next request of each page goes to the app.');
    },
  );
  const onFile = (file: File | undefined) => {
    setNotice(undefined);
    if (file) upload.run(file);
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    onFile(event.dataTransfer.files[0]);
  };
  const inputId = 'zip-upload';
  const fromBranch = environment.branch !== 'uploadable';

  return (
    <section className="card" aria-labelledby="deploy-heading">
      <h2 id="deploy-heading">Deploy</h2>
      {fromBranch ? (
        <p>
          Builds the branch <code>{environment.branch}</code>: a push deploys its new commit (through the
          repository&apos;s webhook, or polling); Rebuild fetches the branch&apos;s newest commit now.
        </p>
      ) : (
        <div
          className="drop"
          onDragOver={(event) => {
            event.preventDefault();
          }}
          onDrop={onDrop}
        >
          <label htmlFor={inputId}>Upload a .zip of the code</label>
          <input
            id={inputId}
            type="file"
            accept=".zip,application/zip"
            onChange={(event) => {
              onFile(event.target.files?.[0]);
              event.target.value = '';
            }}
          />
          <span className="muted"> or drop it here</span>
        </div>
      )}
      {progress !== undefined && (
        <progress aria-label="Upload progress" max={1} value={progress}>
          {Math.round(progress * 100)} %
        </progress>
      )}
      <FormError error={upload.error} />
      <div className="actions">
        <button
          type="button"
          disabled={rebuild.busy}
          onClick={() => {
            rebuild.run(false);
          }}
        >
          Rebuild
        </button>
        <button
          type="button"
          className="secondary"
          disabled={rebuild.busy}
          onClick={() => {
            rebuild.run(true);
          }}
        >
          Clean rebuild
        </button>
        <button type="button" className="secondary" disabled={clearCache.busy} onClick={clearCache.run}>
          Clear cache
        </button>
      </div>
      <p className="muted">
        {fromBranch ? 'A rebuild builds the newest commit' : 'A rebuild builds the last upload again'}; a
        clean rebuild first drops the dependency and framework caches.
      </p>
      <FormError error={rebuild.error} />
      <FormError error={clearCache.error} />
      {notice !== undefined && <p role="status">{notice}</p>}
    </section>
  );
}

/** Whether pull requests against the environment's branch get preview environments, forks' included. */
function PreviewsForm(props: { environment: Environment; onSaved: () => void }) {
  const { client } = usePortal();
  const { environment } = props;
  const [enabled, setEnabled] = useState(environment.previews.enabled);
  const [allowForks, setAllowForks] = useState(environment.previews.allowForks);
  const save = useAction(
    () => client.updateEnvironment(environment.name, { previews: { enabled, allowForks } }),
    props.onSaved,
  );
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    save.run();
  };
  return (
    <form className="card" aria-labelledby="previews-heading" onSubmit={submit}>
      <h2 id="previews-heading">Preview environments</h2>
      <p className="choice">
        <label className="inline">
          <input
            type="checkbox"
            checked={enabled}
            onChange={(e) => {
              setEnabled(e.target.checked);
            }}
          />{' '}
          A pull request against <code>{environment.branch}</code> gets its own environment and URL, with this
          environment&apos;s variables
        </label>
      </p>
      <p className="choice">
        <label className="inline">
          <input
            type="checkbox"
            checked={allowForks}
            onChange={(e) => {
              setAllowForks(e.target.checked);
            }}
          />{' '}
          Requests from forks too (their code then sees this environment&apos;s variables, secret ones
          included)
        </label>
      </p>
      <FormError error={save.error} />
      <button type="submit" disabled={save.busy}>
        Save previews
      </button>
    </form>
  );
}

/** The build just started here, read again every second until it has finished. */
function FollowedBuild(props: { build: string }) {
  const { client } = usePortal();
  const build = useLoad(
    useCallback(() => client.getBuild(props.build), [client, props.build]),
    POLL_MS,
  );
  const data = build.data;
  return (
    <section className="card" aria-label="Latest build">
      <LoadError error={build.error} />
      <p role="status">
        {data === undefined || isUnfinished(data)
          ? `Building and deploying… ${data === undefined ? '' : phaseLabel(data.phase)}`
          : data.state === 'SUCCEEDED'
            ? 'Deployed.'
            : `The build ended ${data.state.toLowerCase()}: ${data.failureReason?.message ?? ''}`}
      </p>
      <Link to={pageOf(props.build)}>Build log</Link>
    </section>
  );
}

/** Display name, WordPress install and shell variables, saved with a PATCH. */
function SettingsForm(props: { environment: Environment; onSaved: () => void }) {
  const { client } = usePortal();
  const { environment } = props;
  const [draft, setDraft] = useState<EnvironmentDraft>({
    displayName: environment.displayName,
    wpEnvironment: environment.wpEnvironment,
    shellVariables: environment.shellVariables.map((v) => ({ ...v, secret: v.secret === true })),
  });
  const [saved, setSaved] = useState(false);
  const save = useAction(
    () => client.updateEnvironment(environment.name, { ...draft, shellVariables: [...draft.shellVariables] }),
    () => {
      setSaved(true);
      props.onSaved();
    },
  );
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    setSaved(false);
    save.run();
  };
  return (
    <form onSubmit={submit} className="card" aria-labelledby="settings-heading">
      <h2 id="settings-heading">Settings</h2>
      <EnvironmentFields
        idPrefix="edit"
        draft={draft}
        onChange={(d) => {
          setSaved(false);
          setDraft(d);
        }}
        error={save.error}
      />
      <p className="muted">Changed shell variables apply from the next build.</p>
      <FormError error={save.error} fields={draftFields(draft)} />
      {saved && <p role="status">Saved.</p>}
      <button type="submit" disabled={save.busy}>
        Save settings
      </button>
    </form>
  );
}

function DeleteEnvironment(props: { environment: Environment }) {
  const { client } = usePortal();
  const { environment } = props;
  const appPage = pageOf(environment.name.split('/environments/')[0] ?? '');
  const remove = useAction(
    () => client.deleteEnvironment(environment.name),
    () => {
      navigate(appPage);
    },
  );
  return (
    <>
      <ConfirmButton
        label="Delete environment"
        confirmLabel={`Delete ${environment.displayName}`}
        warning={`${environment.displayName}, its builds, domains and webhooks are deleted and its site stops answering. This cannot be undone.`}
        busy={remove.busy}
        onConfirm={remove.run}
      />
      <FormError error={remove.error} />
    </>
  );
}
