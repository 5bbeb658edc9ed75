/**
 * What an environment is doing, read from its live build and its newest build: the one line a card,
 * a dashboard row and the environment page agree on ("Live", "Building · Installing dependencies",
 * "Failed", "Nothing deployed yet").
 */
import { Badge, Loader } from '@mantine/core';
import type { Build, Environment } from '../../../src/client/api-client.js';
import { isUnfinished, phaseLabel } from '../builds/build-summary.js';

export type DeploymentTone = 'live' | 'building' | 'failed' | 'empty' | 'cancelled';

export interface DeploymentState {
  readonly tone: DeploymentTone;
  readonly label: string;
  /** The newest build, when it is not the live one or tells more (running, failed). */
  readonly latest: Build | undefined;
}

/**
 * The environment's state: its newest build while that runs, failed or was cancelled (the site
 * stays on its live build meanwhile), else live or nothing deployed.
 */
export function deploymentState(environment: Environment, latest: Build | undefined): DeploymentState {
  if (latest !== undefined && isUnfinished(latest)) {
    const phase = phaseLabel(latest.phase);
    return {
      tone: 'building',
      label: latest.state === 'QUEUED' ? 'Queued' : phase === '' ? 'Building' : `Building · ${phase}`,
      latest,
    };
  }
  if (latest?.state === 'FAILED') return { tone: 'failed', label: 'Failed', latest };
  if (environment.reconciling) return { tone: 'building', label: 'Changing…', latest };
  if (environment.build !== '') return { tone: 'live', label: 'Live', latest };
  if (latest?.state === 'CANCELLED') return { tone: 'cancelled', label: 'Cancelled', latest };
  return { tone: 'empty', label: 'Nothing deployed yet', latest };
}

const COLORS: Readonly<Record<DeploymentTone, string>> = {
  live: 'green',
  building: 'blue',
  failed: 'red',
  empty: 'gray',
  cancelled: 'gray',
};

/** The state as a badge (a spinner while building). */
export function DeploymentBadge(props: { state: DeploymentState }) {
  const { tone, label } = props.state;
  return (
    <Badge
      color={COLORS[tone]}
      variant="light"
      data-tone={tone}
      className="deployment-state"
      leftSection={tone === 'building' ? <Loader size={10} color="blue" aria-hidden /> : undefined}
    >
      {label}
    </Badge>
  );
}
