/** Regions by the names people know them by, for every page that shows an application's region. */
import { useQuery } from '@tanstack/react-query';
import { usePortal } from './portal-context.js';
import { regionsQuery } from './queries.js';

/** The region's name for people (`Europe West`), or its resource name until regions are read. */
export function useRegionName(): (region: string) => string {
  const { client } = usePortal();
  const regions = useQuery(regionsQuery(client));
  return (region) =>
    regions.data?.find((r) => r.name === region)?.displayName ?? region.replace(/^regions\//, '');
}
