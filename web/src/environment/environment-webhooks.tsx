/** The environment page's Webhooks tab: the URLs that rebuild the environment or purge its cache, for owners. */
import { Alert, Button, Code, Group, Paper, Stack, Text, Textarea, Title } from '@mantine/core';
import { IconLock, IconPlus, IconRefresh, IconTrash } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { Webhooks } from '../../../src/client/api-client.js';
import { useAccount, usePortal } from '../portal/portal-context.js';
import { keys, webhooksQuery } from '../portal/queries.js';
import { Link, pageOf } from '../portal/router.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { CopyButton } from '../ui/copy-button.js';
import { FormError, LoadError } from '../ui/errors.js';
import { RelativeTime } from '../ui/time.js';
import { useAction } from '../ui/use-action.js';
import { useEnvironmentTab } from './environment-tab-props.js';
import { notifications } from '@mantine/notifications';
import './webhooks.css';

/** What a POST to each URL does, in the reader's words (docs/api.md "Calling a URL"). */
const ACTIONS: Readonly<Record<string, { label: string; does: string }>> = {
  rebuild: {
    label: 'Rebuild',
    does: 'Builds the most recent code again, with the build cache, and deploys it. Calls made while a build waits join it.',
  },
  cleanRebuild: {
    label: 'Clean rebuild',
    does: 'Drops the dependency and framework caches first, then builds and deploys the most recent code.',
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
    <Stack gap="md" component="section" aria-labelledby="webhooks-heading" className="webhooks-tab">
      <div>
        <Title order={2} size="h3" id="webhooks-heading">
          Webhooks
        </Title>
        <Text size="sm" c="dimmed">
          URLs that a CMS, a scheduled job or another service calls to rebuild this environment or empty its
          cache, without signing in.
        </Text>
      </div>
      {role === 'owner' ? (
        <WebhookSet environment={props.environment.name} />
      ) : (
        <Alert variant="light" color="gray" icon={<IconLock size={18} aria-hidden />} title="For owners">
          The token in a webhook URL is its credential, so only the account&apos;s owners create, see and
          manage them. Ask an owner for a URL.
        </Alert>
      )}
    </Stack>
  );
}

function WebhookSet(props: { environment: string }) {
  const { client } = usePortal();
  const queryClient = useQueryClient();
  const { environment } = props;
  const loaded = useQuery(webhooksQuery(client, environment));
  // The answer of a change is the new set: shown at once, without waiting for a reload.
  const show = (set: Webhooks | undefined) => {
    queryClient.setQueryData(keys.webhooks(environment), { set });
  };
  const create = useAction(
    () => client.createWebhooks(environment),
    (answer) => {
      show(answer);
      notifications.show({
        color: 'teal',
        message: 'Webhooks created: copy a URL into the service that calls it.',
      });
    },
  );
  const regenerate = useAction(
    () => client.regenerateWebhooks(environment),
    (answer) => {
      show(answer);
      notifications.show({
        color: 'teal',
        title: 'New URLs made',
        message: 'The old ones no longer work: update every service that called them.',
      });
    },
  );
  const remove = useAction(
    () => client.deleteWebhooks(environment),
    () => {
      show(undefined);
      notifications.show({ message: 'The webhooks are deleted: their URLs no longer work.' });
    },
  );

  if (loaded.data === undefined)
    return loaded.error === null ? (
      <Text c="dimmed">Loading webhooks…</Text>
    ) : (
      <LoadError error={loaded.error} />
    );
  const { set } = loaded.data;

  if (set === undefined)
    return (
      <Paper withBorder p="md" radius="md">
        <Stack gap="sm" align="flex-start">
          <Text size="sm">
            No webhooks yet. Create them to get three URLs, to rebuild, clean-rebuild or purge the cache of
            this environment. A service calls one with a POST, no body and no credentials.
          </Text>
          <Button leftSection={<IconPlus size={16} aria-hidden />} loading={create.busy} onClick={create.run}>
            Create webhooks
          </Button>
          <FormError error={create.error} />
        </Stack>
      </Paper>
    );

  const rebuild = set.webhooks.find((w) => w.action === 'rebuild');
  return (
    <Stack gap="md">
      <Alert
        variant="light"
        color="blue"
        icon={<IconLock size={18} aria-hidden />}
        title="Treat these URLs as secrets"
      >
        Anyone with a URL can run its action: its token is the credential. If one leaks, regenerate them.
        These were made <RelativeTime iso={set.createTime} />.
      </Alert>
      {set.webhooks.map((w) => {
        const known = ACTIONS[w.action];
        const label = known?.label ?? w.action;
        return (
          <Paper withBorder p="md" radius="md" key={w.action}>
            {/* A textarea, so that the whole URL wraps into view on a phone instead of scrolling sideways. */}
            <Textarea
              readOnly
              autosize
              minRows={1}
              spellCheck={false}
              label={`${label} URL`}
              description={known?.does}
              value={w.url}
              onFocus={(e) => {
                e.currentTarget.select();
              }}
              classNames={{ input: 'webhook-url' }}
              rightSection={<CopyButton text={w.url} label={`${label} URL`} />}
            />
          </Paper>
        );
      })}
      {rebuild !== undefined && (
        <Paper withBorder p="md" radius="md" component="section" aria-labelledby="webhook-call-heading">
          <Stack gap="xs">
            <Title order={3} size="h5" id="webhook-call-heading">
              Calling a URL
            </Title>
            <Text size="sm">
              From a terminal or a scheduled job, for example. Builds it starts show on the{' '}
              <Link to={`${pageOf(environment)}/builds`} className="text-link">
                Builds
              </Link>{' '}
              tab as rebuilds.
            </Text>
            <Group gap="xs" wrap="nowrap" align="flex-start">
              <Code block className="grow webhook-command">{`curl -X POST '${rebuild.url}'`}</Code>
              <CopyButton text={`curl -X POST '${rebuild.url}'`} label="rebuild command" />
            </Group>
          </Stack>
        </Paper>
      )}
      <Group gap="sm">
        <ConfirmButton
          label="Regenerate all"
          confirmLabel="Regenerate the URLs"
          warning="The three URLs get a new token: the old URLs stop working at once, so update every service that calls them."
          busy={regenerate.busy}
          leftSection={<IconRefresh size={16} aria-hidden />}
          onConfirm={regenerate.run}
        />
        <ConfirmButton
          label="Delete all"
          confirmLabel="Delete the webhooks"
          warning="The three URLs stop working at once. New ones can be created later, with a new token."
          busy={remove.busy}
          leftSection={<IconTrash size={16} aria-hidden />}
          onConfirm={remove.run}
        />
      </Group>
      <FormError error={regenerate.error} />
      <FormError error={remove.error} />
    </Stack>
  );
}
