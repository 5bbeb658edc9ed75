/** The regions an application may be created in, and how a region is named on the wire. */
import type { FieldViolation } from './error-catalogue.js';

/** The four regions (docs/api.md "Regions"); fixed after an application is created. */
export const REGIONS = [
  { id: 'US-C', displayName: 'US Central' },
  { id: 'AUS-SE', displayName: 'Australia Southeast' },
  { id: 'UK', displayName: 'United Kingdom' },
  { id: 'EU-W', displayName: 'Europe West' },
] as const;

export type RegionId = (typeof REGIONS)[number]['id'];

export function regionName(id: RegionId): string {
  return `regions/${id}`;
}

/**
 * Accepts the API's `regions/<id>` form and, for convenience, the bare id (`UK`) as the
 * public CLI's wpe.json writes it; anything else is undefined.
 */
export function toRegionId(value: string): RegionId | undefined {
  const id = value.startsWith('regions/') ? value.slice('regions/'.length) : value;
  return REGIONS.find((r) => r.id === id)?.id;
}

export function checkRegion(field: string, value: string): FieldViolation[] {
  if (toRegionId(value) !== undefined) return [];
  return [{ field, description: `must be one of ${REGIONS.map((r) => regionName(r.id)).join(', ')}` }];
}
