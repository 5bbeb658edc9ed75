/** The page of one build (`…/environments/{env}/builds/{build}`): its facts, actions and log. */
import { useCallback } from 'react';
import { CancelBuildButton, RedeployBuildButton } from '../builds/build-actions.js';
import { BuildCommit, useRepositoryOf } from '../builds/build-commit.js';
import { BuildLog } from '../builds/build-log.js';
import {
  BuildBadge,
  buildDuration,
  isRedeployable,
  isUnfinished,
  phaseLabel,
  triggerLabel,
} from '../builds/build-summary.js';
import { useAccount, usePortal } from '../portal/portal-context.js';
import type { Params } from '../portal/route-params.js';
import { Link, pageOf } from '../portal/router.js';
import { formatBytes } from '../ui/bytes.js';
import { LoadError } from '../ui/errors.js';
import { formatTime } from '../ui/time.js';
import { POLL_MS, useLoad } from '../ui/use-load.js';

/**
 * One build: its facts, read again every second so its state and phase change in place, the
 * actions it allows (cancel while unfinished, redeploy once succeeded), and its log, live while it runs.
 */
export function BuildPage(props: { params: Params }) {
  const { client } = usePortal();
  const account = props.params.a ?? '';
  const app = props.params.app ?? '';
  const environmentName = `accounts/${account}/apps/${app}/environments/${props.params.env ?? ''}`;
  const name = `${environmentName}/builds/${props.params.build ?? ''}`;
  const canChange = useAccount(account)?.role !== 'viewer';
  const environment = useLoad(
    useCallback(() => client.getEnvironment(environmentName), [client, environmentName]),
  );
  const build = useLoad(
    useCallback(() => client.getBuild(name), [client, name]),
    POLL_MS,
  );
  const data = build.data;
  const repository = useRepositoryOf(name);
  const environmentLabel = environment.data?.displayName ?? props.params.env ?? '';

  return (
    <section aria-labelledby="build-heading">
      <p className="crumbs">
        <Link to={`/accounts/${encodeURIComponent(account)}`}>{account}</Link> /{' '}
        <Link to={`/accounts/${encodeURIComponent(account)}/apps/${encodeURIComponent(app)}`}>{app}</Link> /{' '}
        <Link to={pageOf(environmentName)}>{environmentLabel}</Link> /{' '}
        <Link to={`${pageOf(environmentName)}/builds`}>Builds</Link>
      </p>
      <h1 id="build-heading">
        Build <code>{props.params.build}</code>
      </h1>
      <LoadError error={build.error} />
      {data === undefined ? (
        build.error === undefined && <p className="loading">Loading the build…</p>
      ) : (
        <>
          <dl className="facts">
            <dt>State</dt>
            <dd>
              <BuildBadge build={data} />
              {isUnfinished(data) && phaseLabel(data.phase) !== '' && (
                <span className="muted"> {phaseLabel(data.phase)}</span>
              )}
            </dd>
            {data.failureReason !== undefined && (
              <>
                <dt>Reason</dt>
                <dd className="error">{data.failureReason.message}</dd>
                {data.failureReason.exitCode !== undefined && (
                  <>
                    <dt>Exit code</dt>
                    <dd>{data.failureReason.exitCode}</dd>
                  </>
                )}
              </>
            )}
            <dt>Trigger</dt>
            <dd>{triggerLabel(data.trigger)}</dd>
            {data.commitSha !== '' && (
              <>
                <dt>Commit</dt>
                <dd>
                  <BuildCommit build={data} repository={repository} />
                </dd>
                <dt>Branch</dt>
                <dd>{data.branch}</dd>
              </>
            )}
            <dt>Created</dt>
            <dd>{formatTime(data.createTime)}</dd>
            <dt>Started</dt>
            <dd>{formatTime(data.startTime)}</dd>
            <dt>Finished</dt>
            <dd>{formatTime(data.finishTime)}</dd>
            <dt>Duration</dt>
            <dd>{buildDuration(data)}</dd>
            <dt>Framework</dt>
            <dd>{data.framework === '' ? '—' : data.framework}</dd>
            <dt>Source</dt>
            <dd>
              {formatBytes(data.sourceBytes)} <code className="digest">{data.sourceDigest}</code>
            </dd>
            {data.artifactDigest !== '' && (
              <>
                <dt>Artifact</dt>
                <dd>
                  <code className="digest">{data.artifactDigest}</code>
                  {data.archived && <span className="muted"> (removed by retention)</span>}
                </dd>
              </>
            )}
          </dl>
          {canChange && (isUnfinished(data) || isRedeployable(data)) && (
            <div className="actions">
              {isUnfinished(data) && <CancelBuildButton build={data} onDone={build.reload} />}
              {isRedeployable(data) && <RedeployBuildButton build={data} />}
            </div>
          )}
          <h2>Log</h2>
          <BuildLog build={name} />
        </>
      )}
    </section>
  );
}
