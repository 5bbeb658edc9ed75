/**
 * The event types a subscription may ask for: names on the wire (docs/api.md "Event types"), so
 * they live with the contract, where the portal's client can re-export them without the rest.
 */
export const EVENT_TYPES = [
  'build.started',
  'build.succeeded',
  'build.failed',
  'build.cancelled',
  'deployment.live',
  'deployment.failed',
  'domain.active',
  'domain.failed',
  'cache.purged',
  'preview.created',
  'preview.deleted',
  'preview.refused',
  'report.sent',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
