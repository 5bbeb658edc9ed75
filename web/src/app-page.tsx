import { useCallback, useEffect, useState, type DragEvent, type SyntheticEvent } from 'react';
import { asApiError, type ApiClient, type ApiError, type Environment } from '../../src/client/api-client.js';

/** How often a page waiting for the platform asks again (a build, a deployment). */
const POLL_MS = 1_000;

/** One application: its environments, each with its live URL and an upload of new code. */
export function AppPage(props: { client: ApiClient; account: string; app: string; onBack: () => void }) {
  const { client, account, app } = props;
  const [environments, setEnvironments] = useState<Environment[]>();
  const [problem, setProblem] = useState<string>();

  const reload = useCallback(() => {
    client.listEnvironments(account, app).then(setEnvironments, (error: unknown) => {
      setProblem(String(error));
    });
  }, [client, account, app]);
  useEffect(reload, [reload]);

  return (
    <section aria-labelledby="app-heading">
      <button type="button" className="link" onClick={props.onBack}>
        ← Applications
      </button>
      <h2 id="app-heading">{app}</h2>
      {problem !== undefined && <p role="alert">{problem}</p>}
      {environments === undefined ? (
        <p className="loading">Loading environments…</p>
      ) : environments.length === 0 ? (
        <p className="empty">No environments yet. Create one below, then upload a .zip of the code to it.</p>
      ) : (
        environments.map((environment) => (
          <EnvironmentCard key={environment.name} client={client} environment={environment} />
        ))
      )}
      <CreateEnvironmentForm client={client} account={account} app={app} onCreated={reload} />
    </section>
  );
}

function EnvironmentCard(props: { client: ApiClient; environment: Environment }) {
  const { client } = props;
  const [environment, setEnvironment] = useState(props.environment);
  const [progress, setProgress] = useState<number>();
  const [build, setBuild] = useState<{ operation: string; state: string }>();
  const [error, setError] = useState<string>();

  // While a build runs, the operation and the environment are asked for again until it is done.
  useEffect(() => {
    if (build === undefined || build.state !== 'running') return;
    const timer = setInterval(() => {
      client.getOperation(build.operation).then(
        async (operation) => {
          if (!operation.done) return;
          setBuild({ operation: build.operation, state: operation.error ? 'failed' : 'live' });
          if (operation.error) setError(operation.error.message);
          setEnvironment(await client.getEnvironment(environment.name));
        },
        (failure: unknown) => {
          setError(String(failure));
        },
      );
    }, POLL_MS);
    return () => {
      clearInterval(timer);
    };
  }, [client, build, environment.name]);

  const upload = (file: File) => {
    setError(undefined);
    setProgress(0);
    client
      .uploadZip(environment.name, file, file.name, (sent, total) => {
        setProgress(total === 0 ? 1 : sent / total);
      })
      .then(
        (operation) => {
          setProgress(undefined);
          setBuild({ operation: operation.name, state: 'running' });
        },
        (failure: unknown) => {
          setProgress(undefined);
          setError(asApiError(failure).message);
        },
      );
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    const file = event.dataTransfer.files[0];
    if (file) upload(file);
  };
  const inputId = `zip-${environment.name}`;
  const live = environment.build !== '';

  return (
    <article className="environment" aria-label={environment.displayName}>
      <h3>{environment.displayName}</h3>
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
            const file = event.target.files?.[0];
            if (file) upload(file);
          }}
        />
        <span className="muted"> or drop it here</span>
      </div>
      {progress !== undefined && (
        <progress aria-label="Upload progress" max={1} value={progress}>
          {Math.round(progress * 100)} %
        </progress>
      )}
      {build?.state === 'running' && (
        <p role="status" className="building">
          Building and deploying…
        </p>
      )}
      {build?.state === 'live' && <p role="status">Deployed.</p>}
      {error !== undefined && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
    </article>
  );
}

function CreateEnvironmentForm(props: {
  client: ApiClient;
  account: string;
  app: string;
  onCreated: () => void;
}) {
  const [displayName, setDisplayName] = useState('');
  const [wpEnvironment, setWpEnvironment] = useState('');
  const [variables, setVariables] = useState<{ key: string; value: string }[]>([]);
  const [error, setError] = useState<ApiError>();

  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    setError(undefined);
    props.client
      .createEnvironment(props.account, props.app, { displayName, wpEnvironment, shellVariables: variables })
      .then(
        () => {
          setDisplayName('');
          setWpEnvironment('');
          setVariables([]);
          props.onCreated();
        },
        (failure: unknown) => {
          setError(asApiError(failure));
        },
      );
  };
  const fieldError = (field: string) => {
    const message = error?.violationOf(field);
    return message === undefined ? null : <p className="error">{message}</p>;
  };
  const shown = new Set(['displayName', 'wpEnvironment', ...variables.flatMap((_, i) => variableFields(i))]);
  const other = error !== undefined && !error.fieldViolations.some((v) => shown.has(v.field));

  return (
    <form onSubmit={submit} className="create-environment">
      <h3>Create an environment</h3>
      <label htmlFor="display-name">Display name</label>
      <input
        id="display-name"
        value={displayName}
        onChange={(e) => {
          setDisplayName(e.target.value);
        }}
      />
      {fieldError('displayName')}
      <label htmlFor="wp-environment">WordPress install (optional)</label>
      <input
        id="wp-environment"
        value={wpEnvironment}
        onChange={(e) => {
          setWpEnvironment(e.target.value);
        }}
      />
      {fieldError('wpEnvironment')}
      <fieldset>
        <legend>Shell variables</legend>
        {variables.map((variable, i) => (
          <div className="variable" key={i}>
            <label htmlFor={`variable-key-${String(i)}`}>Name</label>
            <input
              id={`variable-key-${String(i)}`}
              value={variable.key}
              onChange={(e) => {
                setVariables(variables.map((v, j) => (j === i ? { ...v, key: e.target.value } : v)));
              }}
            />
            {fieldError(`shellVariables[${String(i)}].key`)}
            <label htmlFor={`variable-value-${String(i)}`}>Value</label>
            <input
              id={`variable-value-${String(i)}`}
              value={variable.value}
              onChange={(e) => {
                setVariables(variables.map((v, j) => (j === i ? { ...v, value: e.target.value } : v)));
              }}
            />
            {fieldError(`shellVariables[${String(i)}].value`)}
            <button
              type="button"
              onClick={() => {
                setVariables(variables.filter((_, j) => j !== i));
              }}
            >
              Remove
            </button>
          </div>
        ))}
        <button
          type="button"
          onClick={() => {
            setVariables([...variables, { key: '', value: '' }]);
          }}
        >
          Add a variable
        </button>
      </fieldset>
      {other && (
        <p role="alert" className="error">
          {error.message}
        </p>
      )}
      <button type="submit">Create environment</button>
    </form>
  );
}

function variableFields(index: number): string[] {
  return [`shellVariables[${String(index)}].key`, `shellVariables[${String(index)}].value`];
}
