/** A build in words (badge, trigger, phase, duration, id), shared so it reads the same on every page. */
import { resourceId, type Build } from '../../../src/client/api-client.js';
import { formatDuration } from '../ui/time.js';

/** A build still waiting for, or holding, a worker: it can be cancelled and its log is still growing. */
export function isUnfinished(build: Build): boolean {
  return build.state === 'QUEUED' || build.state === 'RUNNING' || build.state === 'STATE_UNSPECIFIED';
}

/** An earlier build that can be deployed again (rollback): succeeded, artifact kept, not already live. */
export function isRedeployable(build: Build): boolean {
  return build.state === 'SUCCEEDED' && !build.archived && !build.live;
}

const TRIGGERS: Readonly<Record<string, string>> = {
  UPLOAD: 'Upload',
  REBUILD: 'Rebuild',
  CLEAN_REBUILD: 'Clean rebuild',
  REDEPLOY: 'Redeploy (rollback)',
  PUSH: 'Push',
  PULL_REQUEST: 'Pull request',
};

/** What started the build, in words. */
export function triggerLabel(trigger: string): string {
  return TRIGGERS[trigger] ?? trigger;
}

const PHASES: Readonly<Record<string, string>> = {
  UNPACKING: 'Unpacking the source',
  INSTALLING: 'Installing dependencies',
  BUILDING: 'Building',
  PACKAGING: 'Packaging',
  DEPLOYING: 'Deploying',
};

/** The step a running build is at, in words; '' when it is not at one. */
export function phaseLabel(phase: string): string {
  return PHASES[phase] ?? '';
}

/** How long the build ran: start to finish, or so far while it runs; '—' before it starts. */
export function buildDuration(build: Build): string {
  return formatDuration(build.startTime, build.finishTime);
}

/** The build's id, the last part of its name. */
export function buildId(build: Build | string): string {
  return resourceId(typeof build === 'string' ? build : build.name);
}

/** The build's state as a coloured badge, and a second one on the build that serves traffic. */
export function BuildBadge(props: { build: Build }) {
  const { state, live } = props.build;
  const tone =
    state === 'QUEUED' || state === 'RUNNING'
      ? 'running'
      : state === 'FAILED' || state === 'CANCELLED'
        ? 'failed'
        : 'done';
  const words = state === 'STATE_UNSPECIFIED' ? 'Unknown' : state.charAt(0) + state.slice(1).toLowerCase();
  return (
    <>
      <span className={`badge ${tone}`}>{words}</span>
      {live && (
        <>
          {' '}
          <span className="badge live">Live</span>
        </>
      )}
    </>
  );
}
