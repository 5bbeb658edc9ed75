/** The environment page's Builds tab: its builds as a timeline, live, with their actions. */
import { Group, Stack, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { CancelBuildButton, RedeployBuildButton } from '../builds/build-actions.js';
import { BuildCommit, useRepositoryOf } from '../builds/build-commit.js';
import {
  BuildBadge,
  buildDuration,
  buildLabel,
  BuildStateIcon,
  isRedeployable,
  isUnfinished,
  phaseLabel,
  triggerLabel,
} from '../builds/build-summary.js';
import { useAccount, usePortal } from '../portal/portal-context.js';
import { buildsQuery } from '../portal/queries.js';
import { Link, pageOf } from '../portal/router.js';
import { LoadError } from '../ui/errors.js';
import { RelativeTime } from '../ui/time.js';
import { useEnvironmentTab } from './environment-tab-props.js';

/**
 * The environment's builds, newest first, read again every second so a build's state, phase and
 * running time change in place; each links to its page with the log.
 */
export function BuildsTab() {
  const props = useEnvironmentTab();
  const { client } = usePortal();
  const name = props.environment.name;
  const canChange = useAccount(props.account)?.role !== 'viewer';
  const builds = useQuery(buildsQuery(client, name));
  const repository = useRepositoryOf(name);
  const fromBranch = props.environment.branch !== 'uploadable';

  return (
    <section aria-labelledby="builds-heading">
      <h2 id="builds-heading" className="visually-hidden">
        Builds
      </h2>
      <LoadError error={builds.error} />
      {builds.data === undefined ? (
        builds.error === null && <Text c="dimmed">Loading builds…</Text>
      ) : builds.data.length === 0 ? (
        <Text c="dimmed">
          {fromBranch ? (
            <>No builds yet: a push to {props.environment.branch}, or a rebuild, builds it.</>
          ) : (
            <>
              No builds yet. Upload a .zip of the code on the <Link to={pageOf(name)}>Overview</Link> tab to
              build and deploy it.
            </>
          )}
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={560}>
          <Table verticalSpacing="sm" highlightOnHover className="builds">
            <Table.Caption>
              {builds.data.length === 1
                ? 'The only build'
                : `The newest ${String(builds.data.length)} builds`}
              , newest first
            </Table.Caption>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Build</Table.Th>
                <Table.Th scope="col">State</Table.Th>
                <Table.Th scope="col">{fromBranch ? 'Trigger and commit' : 'Trigger'}</Table.Th>
                <Table.Th scope="col">Created</Table.Th>
                <Table.Th scope="col">Duration</Table.Th>
                <Table.Th scope="col" visibleFrom="md">
                  Framework
                </Table.Th>
                {canChange && (
                  <Table.Th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </Table.Th>
                )}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {builds.data.map((build) => (
                <Table.Tr key={build.name}>
                  <Table.Th scope="row">
                    <Group gap="xs" wrap="nowrap">
                      <BuildStateIcon build={build} />
                      <Link to={pageOf(build.name)} aria-label={`Build ${buildLabel(build)}`} ff="monospace">
                        {buildLabel(build)}
                      </Link>
                    </Group>
                  </Table.Th>
                  <Table.Td>
                    <Stack gap={2}>
                      <BuildBadge build={build} />
                      {isUnfinished(build) && phaseLabel(build.phase) !== '' && (
                        <Text size="xs" c="dimmed">
                          {phaseLabel(build.phase)}
                        </Text>
                      )}
                    </Stack>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{triggerLabel(build.trigger)}</Text>
                    {fromBranch && (
                      <Text size="xs" c="dimmed" component="div">
                        <BuildCommit build={build} repository={repository} compact />
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <RelativeTime iso={build.createTime} />
                  </Table.Td>
                  <Table.Td className="nowrap">{buildDuration(build)}</Table.Td>
                  <Table.Td visibleFrom="md">{build.framework === '' ? '—' : build.framework}</Table.Td>
                  {canChange && (
                    <Table.Td>
                      <Group gap="xs" justify="flex-end" wrap="nowrap">
                        {isUnfinished(build) && <CancelBuildButton build={build} />}
                        {isRedeployable(build) && <RedeployBuildButton build={build} />}
                      </Group>
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </section>
  );
}
