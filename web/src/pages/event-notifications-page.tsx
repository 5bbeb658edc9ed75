/** The account's Event notifications page (`/accounts/{a}/events`): subscriptions and deliveries. */
import { useQuery } from '@tanstack/react-query';
import { POLL_MS } from '../portal/queries.js';
import { useState, type SyntheticEvent } from 'react';
import {
  EVENT_TYPES,
  resourceId,
  type Delivery,
  type EventSubscription,
  type EventType,
} from '../../../src/client/api-client.js';
import { AccountNav } from '../account/account-nav.js';
import { useAccount, usePortal } from '../portal/portal-context.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { CopyButton } from '../ui/copy-button.js';
import { FieldError, FormError, LoadError } from '../ui/errors.js';
import { formatTime } from '../ui/time.js';
import { useAction } from '../ui/use-action.js';

/** The account's event subscriptions, their deliveries as they happen, and a form to add one. */
export function EventNotificationsPage(props: { account: string }) {
  const { account } = props;
  const role = useAccount(account)?.role;
  return (
    <section aria-labelledby="events-heading">
      <h1>{account}</h1>
      <AccountNav account={account} />
      <h2 id="events-heading">Event notifications</h2>
      {role === 'owner' ? (
        <Subscriptions account={account} />
      ) : (
        <p className="muted">
          Event notifications POST what happens in this account (builds, deployments, domains, cache purges,
          reports) to other systems, signed with a secret. Only the account&apos;s owners manage them and see
          their deliveries.
        </p>
      )}
    </section>
  );
}

function Subscriptions(props: { account: string }) {
  const { client } = usePortal();
  const { account } = props;
  const list = useQuery({
    queryKey: ['event-subscriptions', account],
    queryFn: () => client.listEventSubscriptions(account),
  });
  const [created, setCreated] = useState<EventSubscription>();
  const subscriptions = list.data;
  return (
    <>
      <LoadError error={list.error} />
      {created?.secret !== undefined && (
        <SecretOnce
          subscription={created}
          secret={created.secret}
          onDone={() => {
            setCreated(undefined);
          }}
        />
      )}
      {subscriptions === undefined ? (
        list.error === null && <p className="loading">Loading subscriptions…</p>
      ) : subscriptions.length === 0 ? (
        <p className="empty">
          No subscriptions yet. Add one below: Atoll then POSTs each event of the chosen types to its URL as
          signed JSON, and retries failed deliveries.
        </p>
      ) : (
        subscriptions.map((s) => (
          <SubscriptionCard key={s.name} subscription={s} onDeleted={() => void list.refetch()} />
        ))
      )}
      <CreateSubscriptionForm
        account={account}
        onCreated={(subscription) => {
          setCreated(subscription);
          void list.refetch();
        }}
      />
    </>
  );
}

/** The signing secret: the create call's answer is the only time the API gives it. */
function SecretOnce(props: { subscription: EventSubscription; secret: string; onDone: () => void }) {
  return (
    <section className="card secret-once" aria-labelledby="secret-heading">
      <h3 id="secret-heading">Signing secret of {props.subscription.targetUrl}</h3>
      <p role="alert">
        Copy it now: it is not shown again. The receiver checks each delivery&apos;s Atoll-Signature with it.
      </p>
      <p>
        <code data-testid="signing-secret">{props.secret}</code>
        <CopyButton text={props.secret} label="signing secret" />
      </p>
      <button type="button" className="secondary" onClick={props.onDone}>
        I have stored it
      </button>
    </section>
  );
}

function SubscriptionCard(props: { subscription: EventSubscription; onDeleted: () => void }) {
  const { client } = usePortal();
  const { subscription } = props;
  const deliveries = useQuery({
    queryKey: ['deliveries', subscription.name],
    queryFn: () => client.listDeliveries(subscription.name),
    refetchInterval: POLL_MS,
  });
  const test = useAction(
    () => client.testEventSubscription(subscription.name),
    () => {
      void deliveries.refetch();
    },
  );
  const remove = useAction(() => client.deleteEventSubscription(subscription.name), props.onDeleted);
  const id = `subscription-${resourceId(subscription.name)}`;
  return (
    <article className="card" aria-labelledby={id}>
      <h3 id={id}>{subscription.targetUrl}</h3>
      <dl className="facts">
        <dt>Events</dt>
        <dd>{subscription.eventTypes.join(', ')}</dd>
        {subscription.description !== '' && (
          <>
            <dt>Description</dt>
            <dd>{subscription.description}</dd>
          </>
        )}
        <dt>Created</dt>
        <dd>{formatTime(subscription.createTime)}</dd>
      </dl>
      <div className="actions">
        <button type="button" className="secondary" disabled={test.busy} onClick={test.run}>
          Send a test event
        </button>
        <ConfirmButton
          label="Delete subscription"
          confirmLabel="Delete it"
          warning={`Nothing more is sent to ${subscription.targetUrl}, and its deliveries are deleted.`}
          busy={remove.busy}
          onConfirm={remove.run}
        />
      </div>
      <FormError error={test.error} />
      <FormError error={remove.error} />
      <LoadError error={deliveries.error} />
      {deliveries.data !== undefined && (
        <Deliveries deliveries={deliveries.data} caption={`Deliveries to ${subscription.targetUrl}`} />
      )}
    </article>
  );
}

function stateBadge(state: Delivery['state']): string {
  if (state === 'SUCCEEDED') return 'badge live';
  if (state === 'FAILED') return 'badge failed';
  return 'badge running';
}

/** Newest first, as the API lists them, each with all its attempts. */
function Deliveries(props: { deliveries: readonly Delivery[]; caption: string }) {
  if (props.deliveries.length === 0)
    return <p className="empty">No deliveries yet: send a test event to try the receiver.</p>;
  return (
    <table>
      <caption>{props.caption}</caption>
      <thead>
        <tr>
          <th scope="col">Event</th>
          <th scope="col">State</th>
          <th scope="col">Attempts</th>
          <th scope="col">Next attempt</th>
        </tr>
      </thead>
      <tbody>
        {props.deliveries.map((d) => (
          <tr key={d.name} data-delivery={d.name}>
            <td>
              {d.eventType}
              <br />
              <span className="muted">{formatTime(d.createTime)}</span>
            </td>
            <td>
              <span className={stateBadge(d.state)}>{d.state}</span>
            </td>
            <td>
              {d.attempts.length === 0 ? (
                <span className="muted">None yet</span>
              ) : (
                <ol className="attempts">
                  {d.attempts.map((a, i) => (
                    <li key={i}>
                      {formatTime(a.time)}:{' '}
                      <span className="attempt-status">
                        {a.statusCode === undefined ? 'no answer' : `HTTP ${String(a.statusCode)}`}
                      </span>{' '}
                      in {String(a.durationMs)} ms
                      {a.error !== '' && <span className="error"> — {a.error}</span>}
                    </li>
                  ))}
                </ol>
              )}
            </td>
            <td>{d.state === 'PENDING' ? formatTime(d.nextAttemptTime) : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function CreateSubscriptionForm(props: { account: string; onCreated: (s: EventSubscription) => void }) {
  const { client } = usePortal();
  const [targetUrl, setTargetUrl] = useState('');
  const [types, setTypes] = useState<readonly EventType[]>([]);
  const [description, setDescription] = useState('');
  const create = useAction(
    () =>
      client.createEventSubscription(props.account, {
        targetUrl,
        // In the list's order, so a repeated pick cannot happen and the answer reads the same way.
        eventTypes: EVENT_TYPES.filter((t) => types.includes(t)),
        ...(description !== '' && { description }),
      }),
    (answer) => {
      setTargetUrl('');
      setTypes([]);
      setDescription('');
      props.onCreated(answer);
    },
  );
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    create.run();
  };
  const toggle = (type: EventType, on: boolean) => {
    setTypes((current) => (on ? [...current, type] : current.filter((t) => t !== type)));
  };
  const urlError = create.error?.violationOf('targetUrl');
  const typeFields = ['eventTypes', ...EVENT_TYPES.map((_, i) => `eventTypes[${String(i)}]`)];
  return (
    <form onSubmit={submit} className="card" aria-labelledby="new-subscription-heading">
      <h3 id="new-subscription-heading">Add a subscription</h3>
      <label htmlFor="subscription-url">Target URL</label>
      <input
        id="subscription-url"
        className="wide"
        inputMode="url"
        value={targetUrl}
        placeholder="https://example.com/hooks/atoll"
        aria-invalid={urlError !== undefined}
        aria-describedby={urlError === undefined ? undefined : 'subscription-url-error'}
        onChange={(e) => {
          setTargetUrl(e.target.value);
        }}
      />
      <FieldError error={create.error} field="targetUrl" id="subscription-url-error" />
      <fieldset>
        <legend>Events to send</legend>
        {EVENT_TYPES.map((type) => {
          const id = `event-type-${type}`;
          return (
            <p key={type} className="choice">
              <input
                id={id}
                type="checkbox"
                checked={types.includes(type)}
                onChange={(e) => {
                  toggle(type, e.target.checked);
                }}
              />{' '}
              <label htmlFor={id} className="inline">
                {type}
              </label>
            </p>
          );
        })}
        {typeFields.map((f) => (
          <FieldError key={f} error={create.error} field={f} />
        ))}
      </fieldset>
      <label htmlFor="subscription-description">Description (optional)</label>
      <input
        id="subscription-description"
        className="wide"
        value={description}
        onChange={(e) => {
          setDescription(e.target.value);
        }}
      />
      <FieldError error={create.error} field="description" />
      <FormError error={create.error} fields={['targetUrl', 'description', ...typeFields]} />
      <div>
        <button type="submit" disabled={create.busy}>
          Add subscription
        </button>
      </div>
    </form>
  );
}
