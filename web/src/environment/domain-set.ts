/**
 * Changes of an environment's set of domains: the API's `:replace` takes the whole set, so every change
 * sends the others back as they are.
 */
import {
  ApiError,
  resourceId,
  type ApiClient,
  type DomainMapping,
  type Operation,
} from '../../../src/client/api-client.js';
import { POLL_MS } from '../portal/queries.js';

/** One entry of a `:replace` body: only what the caller chooses, never the output fields. */
export interface MappingRequest {
  readonly domain: string;
  readonly primary: boolean;
  readonly destinationDomainMapping: string;
}

/** What is sent back for the mappings that stay: only the fields a caller sets. */
export function requestsOf(mappings: readonly DomainMapping[]): MappingRequest[] {
  return mappings
    .filter((m) => m.state !== 'DELETING')
    .map((m) => ({
      domain: m.domain,
      primary: m.primary,
      destinationDomainMapping: m.destinationDomainMapping,
    }));
}

/** Replaces the set and follows the operation until the new mappings were checked once. */
export async function replaceAndWait(
  client: ApiClient,
  environment: string,
  set: readonly MappingRequest[],
): Promise<Operation> {
  const operation = await client.waitForOperation(
    await client.replaceDomainMappings(environment, [...set]),
    POLL_MS / 2,
  );
  if (operation.error !== undefined) throw new ApiError(0, operation.error, operation.error.message);
  return operation;
}

/** The domain a mapping redirects to, or '' when it serves the environment. */
export function redirectOf(mapping: DomainMapping): string {
  return mapping.destinationDomainMapping === '' ? '' : resourceId(mapping.destinationDomainMapping);
}
