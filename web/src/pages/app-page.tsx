/**
 * The page of one application (`/accounts/{a}/apps/{app}`): its environments as cards with what each
 * is doing (previews under their parent), its repository, a new environment, and its deletion.
 */
import {
  Anchor,
  Button,
  Checkbox,
  Group,
  Modal,
  Paper,
  Skeleton,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconExternalLink, IconGitBranch, IconGitPullRequest, IconPlus } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import type { Build, Environment } from '../../../src/client/api-client.js';
import { BuildCommit, type RepositoryRef } from '../builds/build-commit.js';
import { buildLabel, triggerLabel } from '../builds/build-summary.js';
import { deploymentState, DeploymentBadge } from '../environment/deployment-state.js';
import {
  draftFields,
  environmentBody,
  EnvironmentFields,
  type EnvironmentDraft,
} from '../environment/environment-fields.js';
import { useAccount, usePortal } from '../portal/portal-context.js';
import { appOverviewQuery, appQuery, keys } from '../portal/queries.js';
import { useRouteParams } from '../portal/route-params.js';
import { useRegionName } from '../portal/use-region-name.js';
import { accountPage, Link, pageOf, useGo } from '../portal/router.js';
import { RepositoryCard } from '../repository/repository-card.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { fieldError, FormError, LoadError } from '../ui/errors.js';
import { usePageTitle } from '../ui/page-title.js';
import { RelativeTime } from '../ui/time.js';
import { useAction } from '../ui/use-action.js';

const EMPTY: EnvironmentDraft = { displayName: '', wpEnvironment: '', shellVariables: [] };

interface Entry {
  readonly environment: Environment;
  readonly latest: Build | null;
}

/** One application: its environments with their state, a way to create one, and its deletion. */
export function AppPage() {
  const { client } = usePortal();
  const { account, app } = useRouteParams();
  const role = useAccount(account)?.role;
  const overview = useQuery(appOverviewQuery(client, account, app));
  const details = useQuery(appQuery(client, account, app));
  const regionName = useRegionName();
  const [creating, setCreating] = useState(false);
  const go = useGo();
  usePageTitle(app, account);
  const repository = details.data?.repository;
  // Previews are listed under their parent, not beside it.
  const parents = overview.data?.filter((e) => e.environment.parentEnvironment === '');
  const previewsOf = (parent: Environment) =>
    overview.data?.filter((e) => e.environment.parentEnvironment === parent.name) ?? [];
  const remove = useAction(
    () => client.deleteApp(account, app),
    () => {
      notifications.show({ message: `Application ${app} deleted.` });
      go(accountPage(account));
    },
  );
  const canChange = role === 'owner' || role === 'developer';

  return (
    <Stack gap="md">
      <Anchor component={Link} to={accountPage(account)} size="sm">
        ← {account}
      </Anchor>
      <Group justify="space-between" wrap="wrap" gap="sm">
        <div>
          <Title order={1}>{app}</Title>
          {details.data !== undefined && (
            <Text size="sm" c="dimmed">
              {repository === undefined ? 'Direct upload' : repository.displayName} ·{' '}
              {regionName(details.data.region)}
            </Text>
          )}
        </div>
        {canChange && details.data !== undefined && (
          <Button
            leftSection={<IconPlus size={16} aria-hidden />}
            onClick={() => {
              setCreating(true);
            }}
          >
            New environment
          </Button>
        )}
      </Group>
      <LoadError error={details.error} />
      <section aria-labelledby="environments-heading">
        <Title order={2} size="h3" id="environments-heading" mb="sm">
          Environments
        </Title>
        <LoadError error={overview.error} />
        {parents === undefined ? (
          overview.error === null && <Skeleton h={120} />
        ) : parents.length === 0 ? (
          <Paper withBorder p="lg">
            <Text c="dimmed">
              {repository === undefined
                ? 'No environments yet. Create one, then upload a .zip of the code to it.'
                : 'No environments yet. Create one for a branch: its first build starts at once.'}
            </Text>
          </Paper>
        ) : (
          <Stack gap="sm">
            {parents.map((entry) => (
              <EnvironmentCard
                key={entry.environment.name}
                entry={entry}
                previews={previewsOf(entry.environment)}
                repository={repository}
              />
            ))}
          </Stack>
        )}
      </section>
      {repository !== undefined && (
        <RepositoryCard
          account={account}
          app={app}
          repository={repository}
          canManage={canChange}
          isOwner={role === 'owner'}
          onChanged={() => void details.refetch()}
        />
      )}
      {role === 'owner' && (
        <Paper
          withBorder
          p="md"
          className="danger-zone"
          aria-labelledby="delete-app-heading"
          component="section"
        >
          <Group justify="space-between" wrap="wrap">
            <div>
              <Title order={2} size="h4" id="delete-app-heading">
                Delete the application
              </Title>
              <Text size="sm" c="dimmed">
                Its environments, builds and domains go with it.
              </Text>
            </div>
            <ConfirmButton
              label="Delete application"
              confirmLabel={`Delete ${app} and its environments`}
              warning={`${app}, its environments, builds and domains are deleted, and its sites stop answering. This cannot be undone.`}
              busy={remove.busy}
              onConfirm={remove.run}
            />
          </Group>
          <FormError error={remove.error} />
        </Paper>
      )}
      <Modal
        opened={creating}
        onClose={() => {
          setCreating(false);
        }}
        title="Create an environment"
        size="xl"
      >
        <CreateEnvironmentForm account={account} app={app} fromRepository={repository !== undefined} />
      </Modal>
    </Stack>
  );
}

/** An environment's state, live URL, newest build and commit; its previews below it. */
function EnvironmentCard(props: {
  entry: Entry;
  previews: readonly Entry[];
  repository: RepositoryRef | undefined;
}) {
  const { entry, previews, repository } = props;
  const { environment, latest } = entry;
  return (
    <Paper withBorder p="md" component="article" aria-label={environment.displayName}>
      <Stack gap="xs">
        <EnvironmentSummary entry={entry} repository={repository} heading />
        {environment.previews.enabled && previews.length === 0 && (
          <Text size="xs" c="dimmed">
            Previews on: a pull request against {environment.branch} gets its own environment.
          </Text>
        )}
        {previews.length > 0 && (
          <Stack gap="xs" pl="md" className="previews" aria-label={`Previews of ${environment.displayName}`}>
            {previews.map((preview) => (
              <Paper key={preview.environment.name} p="xs" bg="var(--mantine-color-default-hover)">
                <EnvironmentSummary entry={preview} repository={repository} />
              </Paper>
            ))}
          </Stack>
        )}
        {latest === null && environment.build === '' && environment.branch === 'uploadable' && (
          <Text size="xs" c="dimmed">
            Upload a .zip of the code on its page to deploy it.
          </Text>
        )}
      </Stack>
    </Paper>
  );
}

/** The lines of an environment's card: name, branch, state, live URL, newest build, commit, failure. */
function EnvironmentSummary(props: {
  entry: Entry;
  repository: RepositoryRef | undefined;
  heading?: boolean;
}) {
  const { environment, latest } = props.entry;
  const state = deploymentState(environment, latest ?? undefined);
  const isPreview = environment.parentEnvironment !== '';
  return (
    <Stack gap={4}>
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Group gap="xs" wrap="nowrap" className="truncate">
          {isPreview && <IconGitPullRequest size={16} aria-hidden />}
          {props.heading === true ? (
            <Title order={3} size="h4" className="truncate">
              <Link to={pageOf(environment.name)}>{environment.displayName}</Link>
            </Title>
          ) : (
            <Link to={pageOf(environment.name)} fw={600} className="truncate">
              {environment.displayName}
            </Link>
          )}
          {environment.branch !== 'uploadable' && (
            <Group gap={2} wrap="nowrap" c="dimmed">
              <IconGitBranch size={14} aria-hidden />
              <Text size="sm" span>
                {environment.branch}
              </Text>
            </Group>
          )}
        </Group>
        <DeploymentBadge state={state} />
      </Group>
      {environment.build !== '' && (
        <Anchor href={environment.url} target="_blank" rel="noreferrer" size="sm" className="truncate">
          <Group gap={4} wrap="nowrap" component="span">
            <span className="truncate">{environment.url}</span>
            <IconExternalLink size={14} aria-hidden />
          </Group>
        </Anchor>
      )}
      {latest !== null && (
        <Text size="xs" c="dimmed">
          Newest build <Link to={pageOf(latest.name)}>{buildLabel(latest)}</Link>:{' '}
          {triggerLabel(latest.trigger)} <RelativeTime iso={latest.createTime} />
          {latest.commitSha !== '' && (
            <>
              {' · '}
              <BuildCommit build={latest} repository={props.repository} compact />
            </>
          )}
        </Text>
      )}
      {latest?.state === 'FAILED' && (
        <Text size="xs" c="red">
          Build failed: {latest.failureReason?.message ?? 'see its log'}
          {environment.build !== '' && ' · the site still serves the live build'}
        </Text>
      )}
    </Stack>
  );
}

function CreateEnvironmentForm(props: {
  account: string;
  app: string;
  /** A repository application's environment builds a branch, and may preview its pull requests. */
  fromRepository: boolean;
}) {
  const { client } = usePortal();
  const queryClient = useQueryClient();
  const go = useGo();
  const [draft, setDraft] = useState(EMPTY);
  const [branch, setBranch] = useState('main');
  const [previews, setPreviews] = useState(false);
  const create = useAction(
    () =>
      client.createEnvironment(
        props.account,
        props.app,
        props.fromRepository
          ? { ...environmentBody(draft), branch, previews: { enabled: previews } }
          : environmentBody(draft),
      ),
    (operation) => {
      void queryClient.invalidateQueries({ queryKey: keys.appOverview(props.account, props.app) });
      notifications.show({ color: 'teal', message: `Environment ${draft.displayName} created.` });
      // The operation is named under the new environment: …/environments/{env}/operations/{op}.
      go(pageOf(operation.name.split('/operations/')[0] ?? ''));
    },
  );
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    create.run();
  };
  return (
    <form onSubmit={submit}>
      <Stack gap="sm">
        <EnvironmentFields idPrefix="new" draft={draft} onChange={setDraft} error={create.error} />
        {props.fromRepository && (
          <>
            <TextInput
              id="new-branch"
              label="Branch"
              value={branch}
              error={fieldError(create.error, 'branch')}
              onChange={(e) => {
                setBranch(e.currentTarget.value);
              }}
            />
            <Checkbox
              checked={previews}
              label="Preview environments: each pull request against this branch gets its own, with these variables"
              error={fieldError(create.error, 'previews')}
              onChange={(e) => {
                setPreviews(e.currentTarget.checked);
              }}
            />
          </>
        )}
        <FormError error={create.error} fields={[...draftFields(draft), 'branch', 'previews']} />
        <Group justify="flex-end">
          <Button type="submit" loading={create.busy}>
            Create environment
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
