/**
 * An application's git repository on its page: where it comes from, the deploy key to add, the
 * webhook to set up on the host (with its secret, shown once when made) and what each host calls
 * the settings.
 */
import { useState } from 'react';
import type { App } from '../../../src/client/api-client.js';
import { usePortal } from '../portal/portal-context.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { CopyButton } from '../ui/copy-button.js';
import { FormError } from '../ui/errors.js';
import { useAction } from '../ui/use-action.js';

type Repository = NonNullable<App['repository']>;

/** Each git host by the name its users know it by. */
export const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  GITHUB: 'GitHub',
  GITLAB: 'GitLab',
  BITBUCKET: 'Bitbucket',
  GITEA: 'Gitea or Forgejo',
  GENERIC: 'Another git server',
};

/** Where each host keeps webhooks, and the events to tick (docs/git.md "Push webhooks"). */
const WEBHOOK_STEPS: Readonly<Record<string, string>> = {
  GITHUB:
    'GitHub: Settings → Webhooks → Add webhook. Payload URL and Secret as below, content type application/json, events: Pushes and Pull requests.',
  GITLAB:
    'GitLab: Settings → Webhooks. URL as below, the secret as Secret token, triggers: Push events and Merge request events.',
  GITEA:
    'Gitea or Forgejo: Settings → Webhooks → Add webhook → Gitea. Target URL and Secret as below, content type application/json, events: Push and Pull Request.',
  BITBUCKET:
    'Bitbucket: Repository settings → Webhooks → Add webhook. URL and Secret as below, triggers: Repository push and Pull request created, updated, merged and declined.',
  GENERIC:
    'A git server without webhooks: nothing to set up; Atoll reads each branch every few minutes (ATOLL_GIT_POLL_INTERVAL_MS).',
};

export function RepositoryCard(props: {
  account: string;
  app: string;
  repository: Repository;
  /** Developers and owners make webhook secrets; owners reset the host key. */
  canManage: boolean;
  isOwner: boolean;
  onChanged: () => void;
}) {
  const { client } = usePortal();
  const { repository } = props;
  const [secret, setSecret] = useState<string>();
  const rotate = useAction(
    () => client.rotateWebhookSecret(props.account, props.app),
    (answer) => {
      setSecret(answer.secret);
    },
  );
  const reset = useAction(() => client.resetHostKey(props.account, props.app), props.onChanged);
  return (
    <section className="card" aria-labelledby="repository-heading">
      <h2 id="repository-heading">Repository</h2>
      <dl className="facts">
        <dt>Clone URL</dt>
        <dd>
          <code>{repository.url}</code>
        </dd>
        <dt>Host</dt>
        <dd>{PROVIDER_NAMES[repository.provider] ?? repository.provider}</dd>
        <dt>Access token</dt>
        <dd>{repository.accessTokenSet ? 'Stored (never shown)' : 'None'}</dd>
        {repository.statusApiUrl !== '' && (
          <>
            <dt>Commit statuses</dt>
            <dd>
              Sent to <code>{repository.statusApiUrl}</code>
            </dd>
          </>
        )}
      </dl>
      {repository.deployKey !== undefined && (
        <>
          <h3>Deploy key</h3>
          <p className="muted">Add it to the repository as a read-only deploy key.</p>
          <p className="secret-once">
            <code aria-label="Deploy key">{repository.deployKey}</code>{' '}
            <CopyButton text={repository.deployKey} label="the deploy key" />
          </p>
          <p>
            Host key:{' '}
            {repository.hostKeyFingerprint === undefined ? (
              <span className="muted">trusted on the first fetch</span>
            ) : (
              <code>{repository.hostKeyFingerprint}</code>
            )}
          </p>
          {props.isOwner && repository.hostKeyFingerprint !== undefined && (
            <ConfirmButton
              label="Forget the host key"
              confirmLabel="Forget it: the next fetch trusts the key it meets"
              warning="Only after the git host really changed its ssh key: until then a changed key means someone may be in between."
              busy={reset.busy}
              onConfirm={reset.run}
            />
          )}
          <FormError error={reset.error} />
        </>
      )}
      <h3>Webhook</h3>
      <p>
        <code aria-label="Webhook URL">{repository.webhookUrl}</code>{' '}
        <CopyButton text={repository.webhookUrl} label="the webhook URL" />
      </p>
      <p className="muted">{WEBHOOK_STEPS[repository.provider] ?? WEBHOOK_STEPS.GENERIC}</p>
      {secret !== undefined && (
        <div role="status" className="card secret-once">
          <p>The webhook secret, shown only now: paste it into the host&apos;s webhook form.</p>
          <p>
            <code aria-label="Webhook secret">{secret}</code>{' '}
            <CopyButton text={secret} label="the webhook secret" />
          </p>
        </div>
      )}
      {props.canManage && (
        <button type="button" className="secondary" disabled={rotate.busy} onClick={rotate.run}>
          {secret === undefined ? 'Make a webhook secret' : 'Make another (the one above stops working)'}
        </button>
      )}
      <FormError error={rotate.error} />
    </section>
  );
}
