/**
 * An application's git repository on its page: where it comes from, the deploy key to add, the
 * webhook to set up on the host (with its secret, shown once when made) and the host's own steps.
 */
import { Alert, Button, Code, Group, List, Paper, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import {
  IconBrandBitbucket,
  IconBrandGit,
  IconBrandGithub,
  IconBrandGitlab,
  IconKey,
  IconLock,
  IconRefresh,
  IconWebhook,
} from '@tabler/icons-react';
import { useState, type ReactNode } from 'react';
import type { App } from '../../../src/client/api-client.js';
import { usePortal } from '../portal/portal-context.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { CopyButton } from '../ui/copy-button.js';
import { FormError } from '../ui/errors.js';
import { useAction } from '../ui/use-action.js';
import './repository-card.css';

type Repository = NonNullable<App['repository']>;

/** Each git host by the name its users know it by. */
export const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  GITHUB: 'GitHub',
  GITLAB: 'GitLab',
  BITBUCKET: 'Bitbucket',
  GITEA: 'Gitea or Forgejo',
  GENERIC: 'Another git server',
};

function ProviderIcon(props: { provider: string }) {
  const icon = { size: 16, 'aria-hidden': true };
  switch (props.provider) {
    case 'GITHUB':
      return <IconBrandGithub {...icon} />;
    case 'GITLAB':
      return <IconBrandGitlab {...icon} />;
    case 'BITBUCKET':
      return <IconBrandBitbucket {...icon} />;
    default:
      return <IconBrandGit {...icon} />;
  }
}

/** Where each host keeps webhooks, and the events to tick (docs/git.md "Push webhooks"). */
const WEBHOOK_STEPS: Readonly<Record<string, readonly ReactNode[]>> = {
  GITHUB: [
    'In the repository on GitHub: Settings → Webhooks → Add webhook.',
    'Payload URL: the webhook URL above. Content type: application/json.',
    'Secret: the webhook secret (make one below).',
    'Events: “Let me select individual events”, then Pushes and Pull requests.',
  ],
  GITLAB: [
    'In the project on GitLab: Settings → Webhooks → Add new webhook.',
    'URL: the webhook URL above.',
    'Secret token: the webhook secret (make one below).',
    'Triggers: Push events and Merge request events.',
  ],
  GITEA: [
    'In the repository on Gitea or Forgejo: Settings → Webhooks → Add webhook → Gitea (or Forgejo).',
    'Target URL: the webhook URL above. Content type: application/json.',
    'Secret: the webhook secret (make one below).',
    'Trigger on: custom events, then Push and Pull Request.',
  ],
  BITBUCKET: [
    'In the repository on Bitbucket: Repository settings → Webhooks → Add webhook.',
    'URL: the webhook URL above. Secret: the webhook secret (make one below).',
    'Triggers: Repository push, and Pull request created, updated, merged and declined.',
  ],
};

/** A value to copy (a URL, a key): wrapped when long, its copy button beside it. */
function CopyableValue(props: { value: string; label: string; copyLabel: string; block?: boolean }) {
  return (
    <Group gap="xs" wrap="nowrap" align="flex-start" className="copyable">
      <Code block={props.block} aria-label={props.label} className="copyable-value">
        {props.value}
      </Code>
      <CopyButton text={props.value} label={props.copyLabel} />
    </Group>
  );
}

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
  const reset = useAction(
    () => client.resetHostKey(props.account, props.app),
    () => {
      notifications.show({
        color: 'teal',
        message: 'Host key forgotten: the next fetch trusts the key it meets.',
      });
      props.onChanged();
    },
  );
  const provider = PROVIDER_NAMES[repository.provider] ?? repository.provider;
  const steps = WEBHOOK_STEPS[repository.provider];
  return (
    <Paper
      withBorder
      p="md"
      component="section"
      aria-labelledby="repository-heading"
      className="repository-card"
    >
      <Stack gap="md">
        <Title order={2} size="h3" id="repository-heading">
          Repository
        </Title>
        <dl className="facts">
          <dt>Clone URL</dt>
          <dd>
            <CopyableValue value={repository.url} label="Clone URL" copyLabel="the clone URL" />
          </dd>
          <dt>Host</dt>
          <dd>
            <Group gap={6} wrap="nowrap" component="span">
              <ProviderIcon provider={repository.provider} />
              {provider}
            </Group>
          </dd>
          <dt>Access token</dt>
          <dd>
            {repository.accessTokenSet ? (
              <Group gap={4} wrap="nowrap" component="span">
                <IconLock size={14} aria-hidden />
                Stored (never shown)
              </Group>
            ) : (
              'None'
            )}
          </dd>
          {repository.statusApiUrl !== '' && (
            <>
              <dt>Commit statuses</dt>
              <dd>
                Sent to <Code className="copyable-value">{repository.statusApiUrl}</Code>
              </dd>
            </>
          )}
        </dl>

        {repository.deployKey !== undefined && (
          <Stack gap="xs" component="section" aria-labelledby="deploy-key-heading">
            <Title order={3} size="h4" id="deploy-key-heading">
              <Group gap="xs" component="span">
                <IconKey size={18} aria-hidden />
                Deploy key
              </Group>
            </Title>
            <Text size="sm" c="dimmed">
              Add it to the repository as a read-only deploy key: Atoll fetches the code over ssh with it.
            </Text>
            <CopyableValue value={repository.deployKey} label="Deploy key" copyLabel="the deploy key" block />
            <Group justify="space-between" wrap="wrap" gap="xs">
              <Text size="sm">
                Host key:{' '}
                {repository.hostKeyFingerprint === undefined ? (
                  <Text span c="dimmed" size="sm">
                    trusted on the first fetch
                  </Text>
                ) : (
                  <Code aria-label="Host key fingerprint" className="copyable-value">
                    {repository.hostKeyFingerprint}
                  </Code>
                )}
              </Text>
              {props.isOwner && repository.hostKeyFingerprint !== undefined && (
                <ConfirmButton
                  label="Forget the host key"
                  confirmLabel="Forget it: the next fetch trusts the key it meets"
                  warning="Only after the git host really changed its ssh key: until then a changed key means someone may be in between."
                  busy={reset.busy}
                  onConfirm={reset.run}
                />
              )}
            </Group>
            <FormError error={reset.error} />
          </Stack>
        )}

        <Stack gap="xs" component="section" aria-labelledby="webhook-heading">
          <Title order={3} size="h4" id="webhook-heading">
            <Group gap="xs" component="span">
              <IconWebhook size={18} aria-hidden />
              Webhook
            </Group>
          </Title>
          <Text size="sm" c="dimmed">
            The host tells Atoll about pushes and pull requests here: each push builds its branch&apos;s
            environments at once, each pull request gets a preview.
          </Text>
          <CopyableValue value={repository.webhookUrl} label="Webhook URL" copyLabel="the webhook URL" />
          {steps === undefined ? (
            <Text size="sm">
              A git server without webhooks: nothing to set up; Atoll reads each branch every few minutes
              (ATOLL_GIT_POLL_INTERVAL_MS).
            </Text>
          ) : (
            <div>
              <Text size="sm" fw={500}>
                On {provider}
              </Text>
              <List type="ordered" size="sm" spacing={2} aria-label={`Webhook steps on ${provider}`}>
                {steps.map((step, i) => (
                  <List.Item key={i}>{step}</List.Item>
                ))}
              </List>
            </div>
          )}
          {secret !== undefined && (
            <Alert
              role="status"
              color="teal"
              variant="light"
              title="The webhook secret, shown only now"
              classNames={{ title: 'secret-title' }}
            >
              <Stack gap="xs">
                <Text size="sm">Paste it into the host&apos;s webhook form now: it is not shown again.</Text>
                <CopyableValue value={secret} label="Webhook secret" copyLabel="the webhook secret" />
              </Stack>
            </Alert>
          )}
          {props.canManage && (
            <Group gap="xs" wrap="wrap">
              {secret === undefined ? (
                <Button
                  variant="default"
                  leftSection={<IconKey size={16} aria-hidden />}
                  loading={rotate.busy}
                  onClick={rotate.run}
                >
                  Make a webhook secret
                </Button>
              ) : (
                <ConfirmButton
                  label="Make another secret"
                  confirmLabel="Make another: the one above stops working"
                  warning="The secret shown above stops working at once: deliveries signed with it are refused until the host has the new one."
                  tone="danger"
                  variant="default"
                  leftSection={<IconRefresh size={16} aria-hidden />}
                  busy={rotate.busy}
                  onConfirm={rotate.run}
                />
              )}
              <Text size="xs" c="dimmed">
                A secret made here replaces the one before it.
              </Text>
            </Group>
          )}
          <FormError error={rotate.error} />
        </Stack>
      </Stack>
    </Paper>
  );
}
