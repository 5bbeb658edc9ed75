/**
 * The account's home (`/accounts/{a}`): a card per application with what it is doing (the newest
 * build and deployment, live URL, commit, failure), filter and sort, and the creation of one.
 */
import {
  Anchor,
  Badge,
  Button,
  Group,
  Modal,
  NativeSelect,
  Paper,
  PasswordInput,
  Radio,
  Skeleton,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconBrandGit, IconExternalLink, IconPlus, IconSearch, IconUpload } from '@tabler/icons-react';
import { useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type SyntheticEvent } from 'react';
import type { App, Build, Environment } from '../../../src/client/api-client.js';
import { AccountNav } from '../account/account-nav.js';
import { BuildCommit } from '../builds/build-commit.js';
import { triggerLabel } from '../builds/build-summary.js';
import { deploymentState, DeploymentBadge } from '../environment/deployment-state.js';
import { useAccount, usePortal } from '../portal/portal-context.js';
import { appOverviewQuery, appsQuery, keys, regionsQuery } from '../portal/queries.js';
import { appPage, Link, pageOf, useGo } from '../portal/router.js';
import { useRegionName } from '../portal/use-region-name.js';
import { PROVIDER_NAMES } from '../repository/repository-card.js';
import { fieldError, FormError, LoadError } from '../ui/errors.js';
import { usePageTitle } from '../ui/page-title.js';
import { RelativeTime } from '../ui/time.js';
import { useAction } from '../ui/use-action.js';

/** An application's environments with their newest builds, as its card shows them. */
type Overview = readonly { environment: Environment; latest: Build | null }[];

type Sort = 'deployed' | 'name' | 'created';

/** The newest build of any of the application's environments, with its environment. */
function headline(overview: Overview | undefined) {
  let best: { environment: Environment; latest: Build | null } | undefined;
  for (const entry of overview ?? []) {
    if (entry.environment.parentEnvironment !== '') continue;
    if (best === undefined) best = entry;
    else if (
      entry.latest !== null &&
      (best.latest === null || entry.latest.createTime > best.latest.createTime)
    )
      best = entry;
  }
  return best;
}

/** An account's applications as cards, and a way to create one. */
export function AppsPage(props: { account: string }) {
  const { client } = usePortal();
  const { account } = props;
  const apps = useQuery(appsQuery(client, account));
  const member = useAccount(account);
  const [filter, setFilter] = useState('');
  const [sort, setSort] = useState<Sort>('deployed');
  const [creating, setCreating] = useState(false);
  usePageTitle('Applications', account);
  const overviews = useQueries({
    queries: (apps.data ?? []).map((app) => appOverviewQuery(client, account, app.appId)),
  });
  const overviewOf = new Map((apps.data ?? []).map((app, i) => [app.appId, overviews[i]?.data]));
  const newest = (app: App) => headline(overviewOf.get(app.appId))?.latest?.createTime ?? '';
  const shown = (apps.data ?? [])
    .filter((app) => app.appId.includes(filter.trim().toLowerCase()))
    .sort((a, b) =>
      sort === 'name'
        ? a.appId.localeCompare(b.appId)
        : sort === 'created'
          ? b.createTime.localeCompare(a.createTime)
          : newest(b).localeCompare(newest(a)) || a.appId.localeCompare(b.appId),
    );
  const canCreate = member !== undefined && member.role !== 'viewer';

  return (
    <Stack gap={0}>
      <Group justify="space-between" align="center" wrap="wrap" gap="sm">
        <Group gap="sm">
          <Title order={1}>{account}</Title>
          {member !== undefined && (
            <Badge variant="light" color="gray">
              {member.role}
            </Badge>
          )}
        </Group>
        {canCreate && (
          <Button
            leftSection={<IconPlus size={16} aria-hidden />}
            onClick={() => {
              setCreating(true);
            }}
          >
            New application
          </Button>
        )}
      </Group>
      <AccountNav account={account} />
      <LoadError error={apps.error} />
      {apps.data !== undefined && apps.data.length > 0 && (
        <Group gap="sm" mb="md" wrap="wrap">
          <TextInput
            aria-label="Filter applications"
            placeholder="Filter applications"
            leftSection={<IconSearch size={16} aria-hidden />}
            value={filter}
            onChange={(e) => {
              setFilter(e.currentTarget.value);
            }}
            className="grow"
          />
          <NativeSelect
            aria-label="Sort by"
            value={sort}
            onChange={(e) => {
              setSort(e.currentTarget.value as Sort);
            }}
            data={[
              { value: 'deployed', label: 'Recently deployed' },
              { value: 'name', label: 'Name' },
              { value: 'created', label: 'Recently created' },
            ]}
          />
        </Group>
      )}
      {apps.data === undefined ? (
        apps.error === null && (
          <div className="card-grid" aria-busy="true" aria-label="Loading applications">
            <Skeleton h={150} />
            <Skeleton h={150} />
          </div>
        )
      ) : apps.data.length === 0 ? (
        <Paper withBorder p="xl" ta="center">
          <Stack align="center" gap="sm">
            <Title order={2} size="h3">
              No applications yet
            </Title>
            <Text c="dimmed" maw={480}>
              An application holds the environments of one front end. Create one, then upload a .zip of its
              code or connect its git repository.
            </Text>
            {canCreate && (
              <Button
                leftSection={<IconPlus size={16} aria-hidden />}
                onClick={() => {
                  setCreating(true);
                }}
              >
                Create your first application
              </Button>
            )}
          </Stack>
        </Paper>
      ) : shown.length === 0 ? (
        <Text c="dimmed">No application matches “{filter}”.</Text>
      ) : (
        <div className="card-grid" role="list" aria-label="Applications">
          {shown.map((app) => (
            <AppCard key={app.appId} account={account} app={app} overview={overviewOf.get(app.appId)} />
          ))}
        </div>
      )}
      <Modal
        opened={creating}
        onClose={() => {
          setCreating(false);
        }}
        title="Create an application"
        size="lg"
      >
        <CreateAppForm account={account} />
      </Modal>
    </Stack>
  );
}

/** One application: its source, region, and what its newest build and deployment are doing. */
function AppCard(props: { account: string; app: App; overview: Overview | undefined }) {
  const { app, overview, account } = props;
  const regionName = useRegionName();
  const top = headline(overview);
  const live = overview?.find((e) => e.environment.parentEnvironment === '' && e.environment.build !== '');
  const parents = overview?.filter((e) => e.environment.parentEnvironment === '').length ?? 0;
  const previews = (overview?.length ?? 0) - parents;
  const state = top === undefined ? undefined : deploymentState(top.environment, top.latest ?? undefined);
  return (
    <Paper withBorder p="md" radius="md" role="listitem" aria-label={app.appId} className="app-card">
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap" gap="xs">
          <Title order={2} size="h4" className="truncate">
            <Link to={appPage(account, app.appId)}>{app.appId}</Link>
          </Title>
          {state !== undefined && <DeploymentBadge state={state} />}
        </Group>
        <Group gap="xs" c="dimmed" wrap="nowrap">
          {app.repository === undefined ? (
            <IconUpload size={14} aria-hidden />
          ) : (
            <IconBrandGit size={14} aria-hidden />
          )}
          <Text size="xs" className="truncate">
            {app.repository === undefined
              ? 'Direct upload'
              : `${app.repository.displayName} · ${PROVIDER_NAMES[app.repository.provider] ?? app.repository.provider}`}{' '}
            · {regionName(app.region)}
          </Text>
        </Group>
        {overview === undefined ? (
          <Skeleton h={40} />
        ) : overview.length === 0 ? (
          <Text size="sm" c="dimmed">
            No environments yet.
          </Text>
        ) : (
          <>
            {live !== undefined ? (
              <Anchor
                href={live.environment.url}
                target="_blank"
                rel="noreferrer"
                size="sm"
                className="truncate"
                aria-label={`${live.environment.url} (live site of ${app.appId}, opens in a new tab)`}
              >
                <Group gap={4} wrap="nowrap" component="span">
                  <span className="truncate">{live.environment.url.replace(/^https?:\/\//, '')}</span>
                  <IconExternalLink size={14} aria-hidden />
                </Group>
              </Anchor>
            ) : (
              <Text size="sm" c="dimmed">
                Nothing deployed yet
              </Text>
            )}
            {top?.latest != null && (
              <Text size="xs" c="dimmed">
                {triggerLabel(top.latest.trigger)} to{' '}
                <Link to={pageOf(top.environment.name)} c="dimmed" underline="always">
                  {top.environment.displayName}
                </Link>{' '}
                <RelativeTime iso={top.latest.createTime} />
              </Text>
            )}
            {top?.latest != null && top.latest.commitSha !== '' && (
              <Text size="xs" className="truncate">
                <BuildCommit build={top.latest} repository={app.repository} compact />
              </Text>
            )}
            {top?.latest?.state === 'FAILED' && (
              <Text size="xs" c="red" className="truncate" title={top.latest.failureReason?.message}>
                Build failed: {top.latest.failureReason?.message ?? 'see its log'}
              </Text>
            )}
            <Text size="xs" c="dimmed">
              {parents} environment{parents === 1 ? '' : 's'}
              {previews > 0 && ` · ${String(previews)} preview${previews === 1 ? '' : 's'}`}
            </Text>
          </>
        )}
      </Stack>
    </Paper>
  );
}

/** What a new application builds from: uploads, or a git repository's branches. */
type Source = 'upload' | 'repository';

const PROVIDERS: readonly { value: string; label: string }[] = [
  { value: '', label: 'Guess from the URL' },
  ...Object.entries(PROVIDER_NAMES).map(([value, label]) => ({ value, label })),
];

/** The new application's id, region and source; creating it opens its page. */
function CreateAppForm(props: { account: string }) {
  const { client } = usePortal();
  const queryClient = useQueryClient();
  const go = useGo();
  const regions = useQuery(regionsQuery(client));
  const [appId, setAppId] = useState('');
  const [chosenRegion, setRegion] = useState<string>();
  const [source, setSource] = useState<Source>('upload');
  const [url, setUrl] = useState('');
  const [provider, setProvider] = useState('');
  const [accessToken, setAccessToken] = useState('');
  // Until one is chosen, the region is the first the API lists.
  const region = chosenRegion ?? regions.data?.[0]?.name ?? '';
  const create = useAction(
    () =>
      client.createApp(
        props.account,
        appId,
        region,
        source === 'upload'
          ? undefined
          : {
              url: url.trim(),
              ...(provider !== '' && { provider }),
              ...(accessToken !== '' && { accessToken }),
            },
      ),
    () => {
      void queryClient.invalidateQueries({ queryKey: keys.apps(props.account) });
      notifications.show({ color: 'teal', message: `Application ${appId} created.` });
      go(appPage(props.account, appId));
    },
  );
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    create.run();
  };
  const repositoryFields = ['repository.url', 'repository.provider', 'repository.accessToken'];

  return (
    <form onSubmit={submit}>
      <Stack gap="sm">
        <TextInput
          label="Application id"
          description="Lowercase letters, digits and hyphens; it is part of its sites' addresses."
          value={appId}
          data-autofocus
          error={fieldError(create.error, 'appId')}
          onChange={(e) => {
            setAppId(e.currentTarget.value);
          }}
        />
        <NativeSelect
          label="Region"
          value={region}
          error={fieldError(create.error, 'region')}
          onChange={(e) => {
            setRegion(e.currentTarget.value);
          }}
          data={(regions.data ?? []).map((r) => ({ value: r.name, label: r.displayName }))}
        />
        <LoadError error={regions.error} />
        <Radio.Group
          label="Code"
          value={source}
          onChange={(value) => {
            setSource(value === 'repository' ? 'repository' : 'upload');
          }}
        >
          <Stack gap="xs" mt={4}>
            <Radio value="upload" label="Direct upload: the code comes as a .zip, from here or the API" />
            <Radio
              value="repository"
              label="A git repository: each environment builds a branch, pushes deploy, pull requests get previews"
            />
          </Stack>
        </Radio.Group>
        {source === 'repository' && (
          <>
            <TextInput
              label="Clone URL"
              value={url}
              placeholder="https://github.com/owner/repo.git or git@github.com:owner/repo.git"
              error={fieldError(create.error, 'repository.url')}
              onChange={(e) => {
                setUrl(e.currentTarget.value);
              }}
            />
            <NativeSelect
              label="Git host"
              value={provider}
              data={[...PROVIDERS]}
              error={fieldError(create.error, 'repository.provider')}
              onChange={(e) => {
                setProvider(e.currentTarget.value);
              }}
            />
            <PasswordInput
              label="Access token (private https repositories)"
              description="Stored encrypted and never shown again. An ssh URL needs none: the application gets a deploy key to add to the repository."
              autoComplete="off"
              value={accessToken}
              error={fieldError(create.error, 'repository.accessToken')}
              onChange={(e) => {
                setAccessToken(e.currentTarget.value);
              }}
            />
          </>
        )}
        <FormError error={create.error} fields={['appId', 'region', ...repositoryFields]} />
        <Group justify="flex-end">
          <Button type="submit" loading={create.busy} disabled={regions.data === undefined}>
            Create application
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
