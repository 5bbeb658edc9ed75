/** The profile's API access: a person's credentials for the API and the CLI. */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { Credential, GeneratedCredential } from '../../../src/client/api-client.js';
import { usePortal } from '../portal/portal-context.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { CopyButton } from '../ui/copy-button.js';
import { FormError, LoadError } from '../ui/errors.js';
import { formatTime } from '../ui/time.js';
import { useAction } from '../ui/use-action.js';

/** How often the list asks again, so a credential's last use shows while the page is open. */
const CREDENTIALS_POLL_MS = 10_000;

/** The caller's API credentials: generate one (its password shown once), see when each was used, revoke. */
export function ApiCredentials() {
  const { client } = usePortal();
  const credentials = useQuery({
    queryKey: ['credentials'],
    queryFn: () => client.listCredentials(),
    refetchInterval: CREDENTIALS_POLL_MS,
  });
  const [generated, setGenerated] = useState<GeneratedCredential>();
  const generate = useAction(
    () => client.generateCredential(),
    (answer) => {
      setGenerated(answer);
      void credentials.refetch();
    },
  );

  return (
    <section className="card" aria-labelledby="api-access-heading">
      <h2 id="api-access-heading">API access</h2>
      <p className="muted">
        A credential is a user id and a password for HTTP Basic authentication. It acts as you, with your
        roles in each account.
      </p>
      {generated === undefined ? (
        <button
          type="button"
          disabled={generate.busy}
          onClick={() => {
            generate.run();
          }}
        >
          Generate credentials
        </button>
      ) : (
        <NewCredential
          credential={generated}
          onDone={() => {
            setGenerated(undefined);
          }}
        />
      )}
      <FormError error={generate.error} />
      <h3>Your credentials</h3>
      <LoadError error={credentials.error} />
      {credentials.data === undefined ? (
        credentials.error === null && <p className="loading">Loading credentials…</p>
      ) : credentials.data.length === 0 ? (
        <p className="empty">
          You have no credentials yet. Generate one to call the API (<code>/v1</code>) from a script, the{' '}
          <code>atoll</code> CLI or a CI pipeline.
        </p>
      ) : (
        <CredentialTable credentials={credentials.data} onRevoked={() => void credentials.refetch()} />
      )}
    </section>
  );
}

/** The answer of a generation: the one time its password can be read. */
function NewCredential(props: { credential: GeneratedCredential; onDone: () => void }) {
  const { userId, password } = props.credential;
  const example = `curl -u ${userId}:${password} ${window.location.origin}/v1/accounts`;
  return (
    <div className="card new-credential" role="region" aria-labelledby="new-credential-heading">
      <h3 id="new-credential-heading">Your new credential</h3>
      <p role="alert" className="warning">
        Store the password now: it is not shown again. If it is lost, revoke this credential and generate
        another.
      </p>
      <dl className="facts">
        <dt>User id</dt>
        <dd>
          <code>{userId}</code>
          <CopyButton text={userId} label="the user id" />
        </dd>
        <dt>Password</dt>
        <dd>
          <code>{password}</code>
          <CopyButton text={password} label="the password" />
        </dd>
      </dl>
      <p>Try it:</p>
      <pre className="example">
        <code>{example}</code>
      </pre>
      <CopyButton text={example} label="the curl command" />
      <div>
        <button type="button" onClick={props.onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

function CredentialTable(props: { credentials: readonly Credential[]; onRevoked: () => void }) {
  return (
    <table>
      <caption className="muted">Anything that uses a credential acts as you.</caption>
      <thead>
        <tr>
          <th scope="col">User id</th>
          <th scope="col">Created</th>
          <th scope="col">Last used</th>
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {props.credentials.map((c) => (
          <CredentialRow key={c.userId} credential={c} onRevoked={props.onRevoked} />
        ))}
      </tbody>
    </table>
  );
}

function CredentialRow(props: { credential: Credential; onRevoked: () => void }) {
  const { client } = usePortal();
  const { credential } = props;
  const revoke = useAction(() => client.revokeCredential(credential.userId), props.onRevoked);
  return (
    <tr>
      <td>
        <code>{credential.userId}</code>
      </td>
      <td>{formatTime(credential.createTime)}</td>
      <td>{credential.lastUseTime === undefined ? 'Never' : formatTime(credential.lastUseTime)}</td>
      <td>
        <ConfirmButton
          label="Revoke"
          confirmLabel={`Revoke ${credential.userId}`}
          warning="Anything that uses this credential (a script, the CLI, a CI job) stops working at once."
          busy={revoke.busy}
          onConfirm={() => {
            revoke.run();
          }}
        />
        <FormError error={revoke.error} />
      </td>
    </tr>
  );
}
