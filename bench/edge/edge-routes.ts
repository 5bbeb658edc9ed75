/** The environments edge-process.ts publishes, and the Host header that reaches each. */
import { defaultHostname } from '../../src/domain/domains/hostnames.js';

export const BASE_DOMAIN = 'bench.localhost';

export const ENV = {
  /** The static site folder with asset.css and index.html. */
  static: '1001',
  /** The upstream app, `/` (no-store): every request is proxied. */
  app: '1002',
  /** The same upstream app, `/cacheable` (s-maxage=3600): answered from the web cache. */
  cacheable: '1003',
} as const;

export function hostOf(environmentId: string): string {
  return defaultHostname(environmentId, BASE_DOMAIN);
}
