/** The environment page's Webhooks tab: the URLs that rebuild or purge, for owners. */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { Webhooks } from '../../../src/client/api-client.js';
import { useAccount, usePortal } from '../portal/portal-context.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { CopyButton } from '../ui/copy-button.js';
import { FormError, LoadError } from '../ui/errors.js';
import { formatTime } from '../ui/time.js';
import { useAction } from '../ui/use-action.js';
import { useEnvironmentTab } from './environment-tab-props.js';

/** What a POST to each URL does, in the reader's words (docs/api.md "Calling a URL"). */
const ACTIONS: Readonly<Record<string, { label: string; does: string }>> = {
  rebuild: {
    label: 'Rebuild',
    does: 'Builds the most recent upload again, with the build cache, and deploys it.',
  },
  cleanRebuild: {
    label: 'Clean rebuild',
    does: 'Drops the dependency and framework caches first, then builds and deploys the most recent upload.',
  },
  purgeCache: {
    label: 'Purge cache',
    does: 'Empties the web cache: the next request of each page goes to the app.',
  },
};

/**
 * The environment's webhook URLs: a CMS or a scheduled job POSTs to them to rebuild or purge without
 * credentials, so only owners see and manage them.
 */
export function EnvironmentWebhooks() {
  const props = useEnvironmentTab();
  const role = useAccount(props.account)?.role;
  return (
    <section aria-labelledby="webhooks-heading">
      <h2 id="webhooks-heading">Webhooks</h2>
      {role === 'owner' ? (
        <WebhookSet environment={props.environment.name} />
      ) : (
        <p className="muted">
          Webhook URLs rebuild the environment or purge its cache without signing in: their token is the
          credential, so only the account&apos;s owners create, see and manage them. Ask an owner for a URL.
        </p>
      )}
    </section>
  );
}

function WebhookSet(props: { environment: string }) {
  const { client } = usePortal();
  const { environment } = props;
  // Wrapped, so "no set" (undefined) is told apart from "not loaded yet".
  const loaded = useQuery({
    queryKey: ['webhooks', environment],
    queryFn: () => client.getWebhooks(environment).then((found) => ({ set: found })),
  });
  // The answer of a change is the new set: shown at once, without waiting for a reload.
  const [changed, setChanged] = useState<{ set: Webhooks | undefined }>();
  const current = changed ?? loaded.data;
  const [notice, setNotice] = useState<string>();
  const create = useAction(
    () => client.createWebhooks(environment),
    (answer) => {
      setChanged({ set: answer });
      setNotice(undefined);
    },
  );
  const regenerate = useAction(
    () => client.regenerateWebhooks(environment),
    (answer) => {
      setChanged({ set: answer });
      setNotice('New URLs made: the old ones no longer work.');
    },
  );
  const remove = useAction(
    () => client.deleteWebhooks(environment),
    () => {
      setChanged({ set: undefined });
      setNotice('The webhooks are deleted: their URLs no longer work.');
    },
  );

  if (current === undefined)
    return loaded.error === null ? (
      <p className="loading">Loading webhooks…</p>
    ) : (
      <LoadError error={loaded.error} />
    );
  const { set } = current;

  return (
    <>
      {notice !== undefined && <p role="status">{notice}</p>}
      {set === undefined ? (
        <>
          <p className="empty">
            No webhooks yet. Create them to get three URLs that a CMS plug-in, a scheduled job or another
            service can POST to, without credentials, to rebuild this environment or purge its cache.
          </p>
          <button type="button" disabled={create.busy} onClick={create.run}>
            Create webhooks
          </button>
          <FormError error={create.error} />
        </>
      ) : (
        <>
          <p>
            POST to a URL, with no body and no credentials, to run its action. The token in each URL is the
            credential: treat the URLs as secrets. Made {formatTime(set.createTime)}.
          </p>
          {set.webhooks.map((w) => {
            const known = ACTIONS[w.action];
            const id = `webhook-${w.action}`;
            return (
              <div key={w.action} className="card webhook">
                <label htmlFor={id}>{known?.label ?? w.action} URL</label>
                <p className="muted">{known?.does}</p>
                <div className="webhook-url">
                  <input
                    id={id}
                    readOnly
                    value={w.url}
                    onFocus={(e) => {
                      e.target.select();
                    }}
                  />
                  <CopyButton text={w.url} label={`${known?.label ?? w.action} URL`} />
                </div>
              </div>
            );
          })}
          <div className="actions">
            <ConfirmButton
              label="Regenerate all"
              confirmLabel="Regenerate the URLs"
              warning="The three URLs get a new token: the old URLs stop working at once, so update every service that calls them."
              busy={regenerate.busy}
              onConfirm={regenerate.run}
            />
            <ConfirmButton
              label="Delete all"
              confirmLabel="Delete the webhooks"
              warning="The three URLs stop working at once."
              busy={remove.busy}
              onConfirm={remove.run}
            />
          </div>
          <FormError error={regenerate.error} />
          <FormError error={remove.error} />
        </>
      )}
    </>
  );
}
