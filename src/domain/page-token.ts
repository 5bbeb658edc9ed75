/** Keyset pagination shared by every list: page tokens, page size limits and the next token of an answer. */
import { invalidField } from './error-catalogue.js';

/**
 * Opaque page tokens (AIP-158) for keyset pagination: the list they belong to and the sort
 * key of the last item served. A token from another list is refused, not silently reused.
 */
export const PAGE_SIZE_MAX = 200;

export function encodePageToken(list: string, after: readonly string[]): string {
  return Buffer.from(JSON.stringify({ l: list, a: after }), 'utf8').toString('base64url');
}

export function decodePageToken(list: string, token: string): string[] {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (
      typeof parsed === 'object' &&
      parsed !== null &&
      'l' in parsed &&
      'a' in parsed &&
      parsed.l === list &&
      Array.isArray(parsed.a) &&
      parsed.a.every((v) => typeof v === 'string')
    ) {
      return parsed.a;
    }
  } catch {
    // fall through to the one error below
  }
  throw invalidField('pageToken', 'is not a nextPageToken from a previous answer of this list');
}

export interface PageRequest {
  readonly pageSize: number;
  readonly after: readonly string[] | undefined;
}

export function parsePageRequest(
  list: string,
  pageSize: number | undefined,
  pageToken: string | undefined,
  defaultSize: number,
): PageRequest {
  if (pageSize !== undefined && (!Number.isInteger(pageSize) || pageSize < 0 || pageSize > PAGE_SIZE_MAX)) {
    throw invalidField(
      'pageSize',
      `must be an integer from 0 to ${PAGE_SIZE_MAX} (0 means the default, ${defaultSize})`,
    );
  }
  return {
    pageSize: pageSize === undefined || pageSize === 0 ? defaultSize : pageSize,
    after: pageToken === undefined || pageToken === '' ? undefined : decodePageToken(list, pageToken),
  };
}

export interface Page<T> {
  readonly items: T[];
  readonly nextAfter: readonly string[] | undefined;
}

/** The nextPageToken of an answer: empty on the last page (AIP-158). */
export function nextPageToken(list: string, page: Page<unknown>): string {
  return page.nextAfter ? encodePageToken(list, page.nextAfter) : '';
}
