/** The account's Event notifications page (`/accounts/{a}/events`): subscriptions and deliveries. */
import {
  Alert,
  Badge,
  Button,
  Checkbox,
  Group,
  Loader,
  Paper,
  Skeleton,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle, IconPlus, IconSend, IconWebhook } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type SyntheticEvent } from 'react';
import {
  EVENT_TYPES,
  resourceId,
  type Delivery,
  type EventSubscription,
  type EventType,
} from '../../../src/client/api-client.js';
import { AccountNav } from '../account/account-nav.js';
import { attemptStatus, DeliveryTable } from '../account/event-deliveries.js';
import { useAccount, usePortal } from '../portal/portal-context.js';
import { deliveriesQuery, eventSubscriptionsQuery, keys } from '../portal/queries.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { CopyButton } from '../ui/copy-button.js';
import { fieldError, FormError, LoadError } from '../ui/errors.js';
import { usePageTitle } from '../ui/page-title.js';
import { RelativeTime } from '../ui/time.js';
import { useAction } from '../ui/use-action.js';
import '../account/event-notifications.css';

/** The event types by what they are about (the part before the dot), in the API's order. */
const EVENT_GROUPS: readonly { name: string; types: readonly EventType[] }[] = (() => {
  const names: Record<string, string> = {
    build: 'Builds',
    deployment: 'Deployments',
    domain: 'Domains',
    cache: 'Cache',
    preview: 'Previews',
    report: 'Reports',
  };
  const groups = new Map<string, EventType[]>();
  for (const type of EVENT_TYPES) {
    const kind = type.split('.')[0] ?? type;
    groups.set(kind, [...(groups.get(kind) ?? []), type]);
  }
  return [...groups].map(([kind, types]) => ({ name: names[kind] ?? kind, types }));
})();

/** The account's event subscriptions, their deliveries as they happen, and a form to add one. */
export function EventNotificationsPage(props: { account: string }) {
  const { account } = props;
  const role = useAccount(account)?.role;
  usePageTitle('Event notifications', account);
  return (
    <Stack gap={0}>
      <Group gap="sm">
        <Title order={1}>{account}</Title>
        {role !== undefined && (
          <Badge variant="light" color="gray">
            {role}
          </Badge>
        )}
      </Group>
      <AccountNav account={account} />
      <section aria-labelledby="events-heading">
        <Title order={2} size="h3" id="events-heading">
          Event notifications
        </Title>
        <Text c="dimmed" size="sm" mb="md">
          Atoll POSTs each event of the chosen types (builds, deployments, domains, cache purges, previews,
          reports) to your URL as JSON signed with a secret, and retries failed deliveries.
        </Text>
        {role === 'owner' ? (
          <Subscriptions account={account} />
        ) : (
          <Paper withBorder p="md" radius="md">
            <Text size="sm">
              Only the account’s owners manage event notifications and see their deliveries
              {role === undefined ? '' : `; your role is ${role}`}.
            </Text>
          </Paper>
        )}
      </section>
    </Stack>
  );
}

function Subscriptions(props: { account: string }) {
  const { client } = usePortal();
  const { account } = props;
  const list = useQuery(eventSubscriptionsQuery(client, account));
  const [created, setCreated] = useState<EventSubscription>();
  const subscriptions = list.data;
  return (
    <Stack gap="md">
      <CreateSubscriptionForm account={account} onCreated={setCreated} />
      {created?.secret !== undefined && (
        <SecretOnce
          subscription={created}
          secret={created.secret}
          onDone={() => {
            setCreated(undefined);
          }}
        />
      )}
      <section aria-labelledby="subscriptions-heading">
        <Title order={3} size="h4" id="subscriptions-heading" mb="xs">
          Subscriptions
          {subscriptions !== undefined && subscriptions.length > 0 && (
            <Text span c="dimmed" fw="normal" size="sm">
              {' '}
              ({subscriptions.length})
            </Text>
          )}
        </Title>
        <LoadError error={list.error} />
        {subscriptions === undefined ? (
          list.error === null && <Skeleton h={120} aria-busy="true" aria-label="Loading subscriptions" />
        ) : subscriptions.length === 0 ? (
          <Paper withBorder p="lg" radius="md" ta="center">
            <Text c="dimmed" size="sm">
              No subscriptions yet. Add one above: Atoll then POSTs each event of the chosen types to its URL
              as signed JSON, and retries failed deliveries.
            </Text>
          </Paper>
        ) : (
          <Stack gap="md">
            {subscriptions.map((s) => (
              <SubscriptionCard key={s.name} account={account} subscription={s} />
            ))}
          </Stack>
        )}
      </section>
    </Stack>
  );
}

/** The signing secret: the create call's answer is the only time the API gives it. */
function SecretOnce(props: { subscription: EventSubscription; secret: string; onDone: () => void }) {
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="secret-heading">
      <Title order={3} size="h5" id="secret-heading" mb="xs" className="subscription-url-title">
        Signing secret of {props.subscription.targetUrl}
      </Title>
      <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={18} aria-hidden />} mb="sm">
        Copy it now: it is not shown again. The receiver checks each delivery&apos;s Atoll-Signature header
        with it.
      </Alert>
      <div className="secret-value">
        <code data-testid="signing-secret">{props.secret}</code>
        <CopyButton text={props.secret} label="the signing secret" />
      </div>
      <Group justify="flex-end" mt="sm">
        <Button variant="default" onClick={props.onDone}>
          I have stored it
        </Button>
      </Group>
    </Paper>
  );
}

/** One subscription: where it sends, what, its test button with the result, and its deliveries. */
function SubscriptionCard(props: { account: string; subscription: EventSubscription }) {
  const { client } = usePortal();
  const queryClient = useQueryClient();
  const { subscription } = props;
  const deliveries = useQuery(deliveriesQuery(client, subscription.name));
  const [testName, setTestName] = useState<string>();
  const test = useAction(
    () => client.testEventSubscription(subscription.name),
    (delivery) => {
      setTestName(delivery.name);
      void queryClient.invalidateQueries({ queryKey: keys.deliveries(subscription.name) });
    },
  );
  const remove = useAction(
    () => client.deleteEventSubscription(subscription.name),
    () => {
      void queryClient.invalidateQueries({ queryKey: keys.eventSubscriptions(props.account) });
      notifications.show({
        color: 'teal',
        message: `Subscription to ${subscription.targetUrl} deleted.`,
      });
    },
  );
  const tested = deliveries.data?.find((d) => d.name === testName);
  const id = `subscription-${resourceId(subscription.name)}`;
  return (
    <Paper withBorder p="md" radius="md" component="article" aria-labelledby={id}>
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start" gap="sm">
          <Group gap="xs" wrap="nowrap" align="flex-start" className="grow">
            <IconWebhook size={20} aria-hidden className="subscription-icon" />
            <div>
              <Title order={4} id={id} className="subscription-url">
                {subscription.targetUrl}
              </Title>
              <Text size="xs" c="dimmed">
                {subscription.description !== '' && <>{subscription.description} · </>}
                Created <RelativeTime iso={subscription.createTime} />
              </Text>
            </div>
          </Group>
          <Group gap="xs">
            <Button
              variant="default"
              size="xs"
              leftSection={<IconSend size={14} aria-hidden />}
              loading={test.busy}
              onClick={test.run}
            >
              Send a test event
            </Button>
            <ConfirmButton
              label="Delete subscription"
              confirmLabel="Delete it"
              size="xs"
              variant="subtle"
              warning={`Nothing more is sent to ${subscription.targetUrl}, and its deliveries are deleted.`}
              busy={remove.busy}
              onConfirm={remove.run}
            />
          </Group>
        </Group>
        <Group gap={6} aria-label="Event types" role="list">
          {subscription.eventTypes.map((t) => (
            <Badge key={t} role="listitem" variant="light" color="gray" tt="none" radius="sm">
              {t}
            </Badge>
          ))}
        </Group>
        <TestResult subscription={subscription} name={testName} delivery={tested} />
        <FormError error={test.error} />
        <FormError error={remove.error} />
        <div>
          <Title order={5} mb={4}>
            Recent deliveries
          </Title>
          <LoadError error={deliveries.error} />
          {deliveries.data === undefined ? (
            deliveries.error === null && <Skeleton h={40} />
          ) : deliveries.data.length === 0 ? (
            <Text size="sm" c="dimmed">
              No deliveries yet: send a test event to try the receiver.
            </Text>
          ) : (
            <DeliveryTable
              deliveries={deliveries.data}
              caption={`Deliveries to ${subscription.targetUrl}, newest first`}
            />
          )}
        </div>
      </Stack>
    </Paper>
  );
}

/**
 * What became of the test event sent from this card: waiting, then the receiver's answer (a toast
 * too, since the answer comes a moment after the press).
 */
function TestResult(props: {
  subscription: EventSubscription;
  name: string | undefined;
  delivery: Delivery | undefined;
}) {
  const { delivery } = props;
  const attempt = delivery?.attempts.at(-1);
  const told = useRef<string>(undefined);
  const outcome = attempt === undefined ? undefined : `${props.name ?? ''} ${attempt.time}`;
  useEffect(() => {
    if (attempt === undefined || outcome === told.current) return;
    told.current = outcome;
    const ok = attempt.error === '';
    notifications.show({
      color: ok ? 'teal' : 'red',
      title: ok ? 'Test event delivered' : 'Test event failed',
      message: ok
        ? `${props.subscription.targetUrl} answered ${attemptStatus(attempt)}.`
        : `${props.subscription.targetUrl}: ${attemptStatus(attempt)}, ${attempt.error}`,
    });
  }, [attempt, outcome, props.subscription.targetUrl]);
  if (props.name === undefined) return null;
  return (
    <Text size="sm" role="status" component="div">
      {attempt === undefined ? (
        <Group gap="xs">
          <Loader size="xs" />
          <span>Test event sent; waiting for the receiver…</span>
        </Group>
      ) : attempt.error === '' ? (
        <span>
          Test event delivered: {attemptStatus(attempt)} in {String(attempt.durationMs)} ms.
        </span>
      ) : (
        <Text span c="red" size="sm">
          Test event failed: {attemptStatus(attempt)}, {attempt.error}
          {delivery?.state === 'PENDING' && '; Atoll tries again.'}
        </Text>
      )}
    </Text>
  );
}

function CreateSubscriptionForm(props: { account: string; onCreated: (s: EventSubscription) => void }) {
  const { client } = usePortal();
  const queryClient = useQueryClient();
  const [targetUrl, setTargetUrl] = useState('');
  const [types, setTypes] = useState<string[]>([]);
  const [description, setDescription] = useState('');
  const create = useAction(
    () =>
      client.createEventSubscription(props.account, {
        targetUrl: targetUrl.trim(),
        // In the list's order, so a repeated pick cannot happen and the answer reads the same way.
        eventTypes: EVENT_TYPES.filter((t) => types.includes(t)),
        ...(description !== '' && { description }),
      }),
    (answer) => {
      setTargetUrl('');
      setTypes([]);
      setDescription('');
      void queryClient.invalidateQueries({ queryKey: keys.eventSubscriptions(props.account) });
      notifications.show({ color: 'teal', message: `Subscription to ${answer.targetUrl} added.` });
      props.onCreated(answer);
    },
  );
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    create.run();
  };
  const typeFields = ['eventTypes', ...EVENT_TYPES.map((_, i) => `eventTypes[${String(i)}]`)];
  const typesError = typeFields.map((f) => fieldError(create.error, f)).find((e) => e !== undefined);
  const all = types.length === EVENT_TYPES.length;
  return (
    <Paper
      withBorder
      p="md"
      radius="md"
      component="form"
      onSubmit={submit}
      aria-labelledby="new-subscription-heading"
    >
      <Title order={3} size="h4" id="new-subscription-heading" mb="sm">
        Add a subscription
      </Title>
      <Stack gap="sm">
        <TextInput
          id="subscription-url"
          label="Target URL"
          inputMode="url"
          placeholder="https://example.com/hooks/atoll"
          value={targetUrl}
          error={fieldError(create.error, 'targetUrl')}
          onChange={(e) => {
            setTargetUrl(e.currentTarget.value);
          }}
        />
        <Checkbox.Group
          id="subscription-types"
          label="Events to send"
          value={types}
          onChange={setTypes}
          error={typesError}
        >
          <Button
            variant="subtle"
            size="compact-xs"
            mt={4}
            onClick={() => {
              setTypes(all ? [] : [...EVENT_TYPES]);
            }}
          >
            {all ? 'Clear all' : 'Select all'}
          </Button>
          <div className="event-type-groups">
            {EVENT_GROUPS.map((group) => (
              <div key={group.name} role="group" aria-label={group.name}>
                <div className="event-type-group-name" aria-hidden>
                  {group.name}
                </div>
                <Stack gap={6}>
                  {group.types.map((type) => (
                    <Checkbox key={type} value={type} label={type} size="sm" />
                  ))}
                </Stack>
              </div>
            ))}
          </div>
        </Checkbox.Group>
        <TextInput
          id="subscription-description"
          label="Description (optional)"
          placeholder="What receives these events"
          value={description}
          error={fieldError(create.error, 'description')}
          onChange={(e) => {
            setDescription(e.currentTarget.value);
          }}
        />
        <FormError error={create.error} fields={['targetUrl', 'description', ...typeFields]} />
        <Group>
          <Button type="submit" loading={create.busy} leftSection={<IconPlus size={16} aria-hidden />}>
            Add subscription
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
