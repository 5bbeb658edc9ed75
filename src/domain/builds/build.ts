/** Builds: states, phases and triggers as the API shows them (docs/api.md). */

export const BUILD_STATES = [
  'STATE_UNSPECIFIED',
  'QUEUED',
  'RUNNING',
  'SUCCEEDED',
  'FAILED',
  'CANCELLED',
] as const;
export type BuildState = (typeof BUILD_STATES)[number];

export const BUILD_PHASES = [
  'PHASE_UNSPECIFIED',
  'UNPACKING',
  'INSTALLING',
  'BUILDING',
  'PACKAGING',
  'DEPLOYING',
] as const;
export type BuildPhase = (typeof BUILD_PHASES)[number];

export const BUILD_TRIGGERS = [
  'TRIGGER_UNSPECIFIED',
  'UPLOAD',
  'REBUILD',
  'CLEAN_REBUILD',
  'REDEPLOY',
  'PUSH',
  'PULL_REQUEST',
] as const;
export type BuildTrigger = (typeof BUILD_TRIGGERS)[number];

export function isFinished(state: BuildState): boolean {
  return state === 'SUCCEEDED' || state === 'FAILED' || state === 'CANCELLED';
}

/** Builds list paging (docs/api.md "Builds"): 10 by default, 200 at most. */
export const BUILDS_PAGE_DEFAULT = 10;
