/** A build in words (badge, trigger, phase, duration, id), shared so it reads the same on every page. */
import { Badge, Group, Loader, ThemeIcon } from '@mantine/core';
import { IconCheck, IconCircleDashed, IconClock, IconPlayerStop, IconX } from '@tabler/icons-react';
import { resourceId, shortBuildId, type Build } from '../../../src/client/api-client.js';
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

/** The short form of a build's id, as the CLI prints it and the API accepts it. */
export function buildLabel(build: Build | string): string {
  return shortBuildId(buildId(build));
}

/** The state of a build in words. */
export function stateLabel(state: string): string {
  return state === 'STATE_UNSPECIFIED' ? 'Unknown' : state.charAt(0) + state.slice(1).toLowerCase();
}

const STATE_LOOK: Readonly<Record<string, { color: string; Icon: typeof IconCheck }>> = {
  SUCCEEDED: { color: 'green', Icon: IconCheck },
  FAILED: { color: 'red', Icon: IconX },
  CANCELLED: { color: 'gray', Icon: IconPlayerStop },
  QUEUED: { color: 'yellow', Icon: IconClock },
  RUNNING: { color: 'blue', Icon: IconCircleDashed },
};

/** The build's state as an icon, for a timeline: spinning while it runs. */
export function BuildStateIcon(props: { build: Build; size?: number }) {
  const size = props.size ?? 26;
  if (props.build.state === 'RUNNING')
    return (
      <ThemeIcon variant="light" color="blue" radius="xl" size={size} aria-hidden>
        <Loader size={size * 0.55} color="blue" />
      </ThemeIcon>
    );
  const look = STATE_LOOK[props.build.state] ?? { color: 'gray', Icon: IconCircleDashed };
  return (
    <ThemeIcon variant="light" color={look.color} radius="xl" size={size} aria-hidden>
      <look.Icon size={size * 0.6} />
    </ThemeIcon>
  );
}

/** The build's state as a coloured badge, and a second one on the build that serves traffic. */
export function BuildBadge(props: { build: Build }) {
  const { state, live } = props.build;
  const color = STATE_LOOK[state]?.color ?? 'gray';
  return (
    <Group gap={6} wrap="nowrap" component="span">
      <Badge color={color} variant="light" data-state={state}>
        {stateLabel(state)}
      </Badge>
      {live && (
        <Badge color="teal" variant="filled" data-live="true">
          Live
        </Badge>
      )}
    </Group>
  );
}
