/**
 * The environment page (`…/environments/{env}/{tab}`): the live deployment as a hero card with the
 * actions on it, above tabs (one route each, src/portal/routes.tsx) that get the environment through
 * EnvironmentTabContext.
 */
import { Anchor, Breadcrumbs, Group, Paper, Skeleton, Stack, Text, Title } from '@mantine/core';
import { IconExternalLink, IconGitBranch, IconGitPullRequest } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { Outlet } from '@tanstack/react-router';
import type { Build, Environment } from '../../../src/client/api-client.js';
import { BuildCommit, useRepositoryOf } from '../builds/build-commit.js';
import { buildLabel, triggerLabel } from '../builds/build-summary.js';
import { usePortal } from '../portal/portal-context.js';
import { buildQuery, environmentQuery, latestBuildQuery, POLL_MS } from '../portal/queries.js';
import { useRouteParams } from '../portal/route-params.js';
import { accountPage, appPage, Link, pageOf } from '../portal/router.js';
import { LoadError } from '../ui/errors.js';
import { NavTabs } from '../ui/nav-tabs.js';
import { usePageTitle } from '../ui/page-title.js';
import { RelativeTime } from '../ui/time.js';
import { deploymentState, DeploymentBadge } from './deployment-state.js';
import { EnvironmentActions } from './environment-actions.js';
import { EnvironmentTabContext } from './environment-tab-props.js';

/** The environment page's tabs: the path after the environment's, and the label. */
const TABS: readonly { path: string; label: string }[] = [
  { path: '', label: 'Overview' },
  { path: 'builds', label: 'Builds' },
  { path: 'usage', label: 'Usage' },
  { path: 'logs', label: 'Runtime logs' },
  { path: 'domains', label: 'Domains' },
  { path: 'webhooks', label: 'Webhooks' },
  { path: 'reports', label: 'Reports' },
];

/**
 * An environment: its state and live deployment above tabs for what can be done with it. The
 * environment is read again every second, so a deployment or a change made elsewhere shows at once.
 */
export function EnvironmentPage() {
  const { client } = usePortal();
  const { account, app, env } = useRouteParams();
  const name = `accounts/${account}/apps/${app}/environments/${env}`;
  const environment = useQuery(environmentQuery(client, name));
  const latest = useQuery(latestBuildQuery(client, name, POLL_MS));
  const data = environment.data;
  usePageTitle(data?.displayName ?? env, app, account);
  const base = pageOf(name);

  return (
    <Stack gap="md">
      <Breadcrumbs separator="/" aria-label="Breadcrumbs" component="nav">
        <Anchor component={Link} to={accountPage(account)} size="sm">
          {account}
        </Anchor>
        <Anchor component={Link} to={appPage(account, app)} size="sm">
          {app}
        </Anchor>
      </Breadcrumbs>
      <LoadError error={environment.error} />
      {data === undefined ? (
        environment.error === null && <Skeleton h={180} />
      ) : (
        <>
          <Group justify="space-between" wrap="wrap" gap="sm">
            <Group gap="sm" wrap="wrap">
              <Title order={1}>{data.displayName}</Title>
              <DeploymentBadge state={deploymentState(data, latest.data ?? undefined)} />
            </Group>
          </Group>
          <LiveDeployment environment={data} latest={latest.data ?? undefined} />
          <NavTabs
            label="Environment pages"
            tabs={TABS.map((t) => ({
              to: t.path === '' ? base : `${base}/${t.path}`,
              label: t.label,
              prefix: t.path !== '',
            }))}
          />
          <EnvironmentTabContext.Provider
            value={{ environment: data, account, reload: () => void environment.refetch() }}
          >
            <Outlet />
          </EnvironmentTabContext.Provider>
        </>
      )}
    </Stack>
  );
}

/** The hero card: where the site is live, the build serving it and its commit, and the actions. */
function LiveDeployment(props: { environment: Environment; latest: Build | undefined }) {
  const { client } = usePortal();
  const { environment } = props;
  const live = useQuery({ ...buildQuery(client, environment.build), enabled: environment.build !== '' });
  const repository = useRepositoryOf(environment.name);
  const build = live.data;
  return (
    <Paper withBorder p="lg" radius="md" component="section" aria-label="Live deployment" className="hero">
      <Stack gap="md">
        {environment.parentEnvironment !== '' && (
          <Text size="sm" role="note">
            <IconGitPullRequest size={14} aria-hidden /> A preview of{' '}
            <Link to={pageOf(environment.parentEnvironment)}>its parent environment</Link> for pull request #
            {String(environment.pullRequest ?? 0)} ({environment.branch}): new commits on the request rebuild
            it, and it is deleted when the request is closed or merged.
          </Text>
        )}
        {environment.build === '' ? (
          <Stack gap={4}>
            <Text fw={600}>Nothing deployed yet</Text>
            <Text size="sm" c="dimmed">
              {environment.branch === 'uploadable'
                ? 'Upload a .zip of the code below: it is built, then served at this environment’s address.'
                : `A push to ${environment.branch}, or a rebuild, builds and deploys it.`}
            </Text>
          </Stack>
        ) : (
          <Stack gap="xs">
            <Text size="xs" tt="uppercase" fw={700} c="dimmed">
              Live at
            </Text>
            <Anchor
              href={environment.url}
              target="_blank"
              rel="noreferrer"
              fw={600}
              size="lg"
              className="live-url"
              aria-label={`${environment.url} (opens in a new tab)`}
            >
              <Group gap={6} wrap="nowrap" component="span">
                <span className="truncate">{environment.url}</span>
                <IconExternalLink size={16} aria-hidden />
              </Group>
            </Anchor>
            <div className="hero-facts">
              <Fact label="Build">
                <Link
                  to={pageOf(environment.build)}
                  aria-label={`Live build ${buildLabel(environment.build)}`}
                >
                  <code>{buildLabel(environment.build)}</code>
                </Link>
                {build !== undefined && ` · ${triggerLabel(build.trigger)}`}
              </Fact>
              <Fact label="Deployed">
                <RelativeTime iso={build?.finishTime ?? build?.createTime} />
              </Fact>
              {build !== undefined && build.commitSha !== '' && (
                <Fact label="Commit">
                  <BuildCommit build={build} repository={repository} compact />
                </Fact>
              )}
              {environment.branch !== 'uploadable' && (
                <Fact label="Branch">
                  <IconGitBranch size={14} aria-hidden /> {environment.branch}
                </Fact>
              )}
              <Fact label="Framework">
                {build === undefined || build.framework === '' ? '—' : build.framework}
              </Fact>
              <Fact label="Node.js">
                {build === undefined || build.nodeVersion === '' ? 'none (static site)' : build.nodeVersion}
              </Fact>
            </div>
          </Stack>
        )}
        <EnvironmentActions environment={environment} />
      </Stack>
    </Paper>
  );
}

function Fact(props: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {props.label}
      </Text>
      <Text size="sm" component="div" className="truncate">
        {props.children}
      </Text>
    </div>
  );
}
