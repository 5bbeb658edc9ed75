/** The page of one build (`…/environments/{env}/builds/{build}`): its facts, actions and log. */
import { Anchor, Breadcrumbs, Code, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { CancelBuildButton, RedeployBuildButton } from '../builds/build-actions.js';
import { BuildCommit, useRepositoryOf } from '../builds/build-commit.js';
import { BuildLog } from '../builds/build-log.js';
import {
  BuildBadge,
  buildDuration,
  buildLabel,
  isRedeployable,
  isUnfinished,
  phaseLabel,
  triggerLabel,
} from '../builds/build-summary.js';
import { useAccount, usePortal } from '../portal/portal-context.js';
import { buildQuery, environmentQuery } from '../portal/queries.js';
import { useRouteParams } from '../portal/route-params.js';
import { accountPage, appPage, Link, pageOf } from '../portal/router.js';
import { formatBytes } from '../ui/bytes.js';
import { LoadError } from '../ui/errors.js';
import { usePageTitle } from '../ui/page-title.js';
import { formatTime, RelativeTime } from '../ui/time.js';

/**
 * One build: its facts, read again every second so its state and phase change in place, the
 * actions it allows (cancel while unfinished, redeploy once succeeded), and its log, live while it runs.
 */
export function BuildPage() {
  const { client } = usePortal();
  const params = useRouteParams();
  const { account, app } = params;
  const environmentName = `accounts/${account}/apps/${app}/environments/${params.env}`;
  const name = `${environmentName}/builds/${params.build}`;
  const canChange = useAccount(account)?.role !== 'viewer';
  const environment = useQuery(environmentQuery(client, environmentName));
  const build = useQuery(buildQuery(client, name));
  const data = build.data;
  const repository = useRepositoryOf(name);
  const environmentLabel = environment.data?.displayName ?? params.env;
  const short = buildLabel(data ?? params.build);
  usePageTitle(`Build ${short}`, environmentLabel, app);

  return (
    <Stack gap="md">
      <Breadcrumbs separator="/" aria-label="Breadcrumbs" component="nav">
        <Anchor component={Link} to={accountPage(account)} size="sm">
          {account}
        </Anchor>
        <Anchor component={Link} to={appPage(account, app)} size="sm">
          {app}
        </Anchor>
        <Anchor component={Link} to={pageOf(environmentName)} size="sm">
          {environmentLabel}
        </Anchor>
        <Anchor component={Link} to={`${pageOf(environmentName)}/builds`} size="sm">
          Builds
        </Anchor>
      </Breadcrumbs>
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Group gap="sm" wrap="wrap">
          <Title order={1}>
            Build <Code fz="inherit">{short}</Code>
          </Title>
          {data !== undefined && <BuildBadge build={data} />}
        </Group>
        {data !== undefined && canChange && (
          <Group gap="xs">
            {isUnfinished(data) && <CancelBuildButton build={data} />}
            {isRedeployable(data) && <RedeployBuildButton build={data} size="sm" />}
          </Group>
        )}
      </Group>
      <LoadError error={build.error} />
      {data === undefined ? (
        build.error === null && <Text c="dimmed">Loading the build…</Text>
      ) : (
        <>
          {data.failureReason !== undefined && (
            <Paper withBorder p="sm" bg="var(--mantine-color-red-light)" role="note">
              <Text size="sm" fw={600} c="red">
                {data.state === 'CANCELLED' ? 'Cancelled' : 'Failed'}
                {data.failureReason.exitCode !== undefined &&
                  ` (exit code ${String(data.failureReason.exitCode)})`}
              </Text>
              <Text size="sm">{data.failureReason.message}</Text>
            </Paper>
          )}
          <Paper withBorder p="md">
            <dl className="facts build-facts">
              <Fact label="State">
                <BuildBadge build={data} />
                {isUnfinished(data) && phaseLabel(data.phase) !== '' && (
                  <Text span c="dimmed">
                    {' '}
                    {phaseLabel(data.phase)}
                  </Text>
                )}
              </Fact>
              <Fact label="Trigger">{triggerLabel(data.trigger)}</Fact>
              {data.commitSha !== '' && (
                <>
                  <Fact label="Commit">
                    <BuildCommit build={data} repository={repository} />
                  </Fact>
                  <Fact label="Branch">{data.branch}</Fact>
                </>
              )}
              <Fact label="Created">
                <RelativeTime iso={data.createTime} />{' '}
                <Text span c="dimmed" size="xs">
                  ({formatTime(data.createTime)})
                </Text>
              </Fact>
              <Fact label="Duration">{buildDuration(data)}</Fact>
              <Fact label="Framework">{data.framework === '' ? '—' : data.framework}</Fact>
              <Fact label="Node.js">{data.nodeVersion === '' ? '—' : data.nodeVersion}</Fact>
              <Fact label="Source">
                {formatBytes(data.sourceBytes)} <code className="digest">{data.sourceDigest}</code>
              </Fact>
              {data.artifactDigest !== '' && (
                <Fact label="Artifact">
                  <code className="digest">{data.artifactDigest}</code>
                  {data.archived && (
                    <Text span c="dimmed">
                      {' '}
                      (removed by retention)
                    </Text>
                  )}
                </Fact>
              )}
              <Fact label="Id">
                <code className="digest">{data.name.slice(data.name.lastIndexOf('/') + 1)}</code>
              </Fact>
            </dl>
          </Paper>
          <section aria-labelledby="log-heading">
            <Title order={2} size="h3" id="log-heading" mb="sm">
              Log
            </Title>
            <BuildLog build={name} />
          </section>
        </>
      )}
    </Stack>
  );
}

function Fact(props: { label: string; children: ReactNode }) {
  return (
    <>
      <dt>{props.label}</dt>
      <dd>{props.children}</dd>
    </>
  );
}
