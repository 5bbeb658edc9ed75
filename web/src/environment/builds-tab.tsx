/** The environment page's Builds tab: its builds, live, with their actions. */
import { useCallback } from 'react';
import { CancelBuildButton, RedeployBuildButton } from '../builds/build-actions.js';
import { BuildCommit, useRepositoryOf } from '../builds/build-commit.js';
import {
  BuildBadge,
  buildDuration,
  buildId,
  isRedeployable,
  isUnfinished,
  phaseLabel,
  triggerLabel,
} from '../builds/build-summary.js';
import { useAccount, usePortal } from '../portal/portal-context.js';
import { Link, pageOf } from '../portal/router.js';
import { LoadError } from '../ui/errors.js';
import { formatTime } from '../ui/time.js';
import { POLL_MS, useLoad } from '../ui/use-load.js';
import type { EnvironmentTabProps } from './environment-tab-props.js';

/**
 * The environment's builds, newest first, read again every second so a build's state, phase and
 * running time change in place; each links to its page with the log.
 */
export function BuildsTab(props: EnvironmentTabProps) {
  const { client } = usePortal();
  const name = props.environment.name;
  const canChange = useAccount(props.account)?.role !== 'viewer';
  const builds = useLoad(
    useCallback(() => client.listBuilds(name), [client, name]),
    POLL_MS,
  );
  const repository = useRepositoryOf(name);
  const fromBranch = props.environment.branch !== 'uploadable';

  return (
    <section aria-labelledby="builds-heading">
      <h2 id="builds-heading">Builds</h2>
      <LoadError error={builds.error} />
      {builds.data === undefined ? (
        builds.error === undefined && <p className="loading">Loading builds…</p>
      ) : builds.data.length === 0 ? (
        <p className="empty">
          {fromBranch ? (
            <>
              No builds yet: a push to {props.environment.branch}, or a rebuild on the{' '}
              <Link to={pageOf(name)}>Overview</Link> tab, builds it.
            </>
          ) : (
            <>
              No builds yet. Upload a .zip of the code on the <Link to={pageOf(name)}>Overview</Link> tab to
              build and deploy it.
            </>
          )}
        </p>
      ) : (
        <table className="builds">
          <caption className="muted">The latest {builds.data.length} builds, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Build</th>
              <th scope="col">State</th>
              <th scope="col">Trigger</th>
              {fromBranch && <th scope="col">Commit</th>}
              <th scope="col">Created</th>
              <th scope="col">Duration</th>
              <th scope="col">Framework</th>
              {canChange && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {builds.data.map((build) => (
              <tr key={build.name}>
                <th scope="row">
                  <Link to={pageOf(build.name)} aria-label={`Build ${buildId(build)}`}>
                    <code>{buildId(build).slice(0, 8)}</code>
                  </Link>
                </th>
                <td>
                  <BuildBadge build={build} />
                  {isUnfinished(build) && phaseLabel(build.phase) !== '' && (
                    <span className="muted"> {phaseLabel(build.phase)}</span>
                  )}
                </td>
                <td>{triggerLabel(build.trigger)}</td>
                {fromBranch && (
                  <td>
                    <BuildCommit build={build} repository={repository} compact />
                  </td>
                )}
                <td>{formatTime(build.createTime)}</td>
                <td>{buildDuration(build)}</td>
                <td>{build.framework === '' ? '—' : build.framework}</td>
                {canChange && (
                  <td>
                    {isUnfinished(build) && <CancelBuildButton build={build} onDone={builds.reload} />}
                    {isRedeployable(build) && <RedeployBuildButton build={build} />}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
