/** Keyset pagination in SQL, shared by every repository that lists, so that all lists page the same way. */
import { sql, type RawBuilder } from 'kysely';
import { invalidField } from '../domain/error-catalogue.js';
import { isUuid } from '../domain/identifier-rules.js';
import type { Page, PageRequest } from '../domain/page-token.js';

/**
 * Keyset pagination: queries fetch pageSize + 1 rows after the last key; the extra row only
 * tells whether another page exists, and the last served row's key becomes the token.
 */
export function toPage<Row, Item>(
  rows: Row[],
  request: PageRequest,
  toItem: (row: Row) => Item,
  keyOf: (item: Item) => string[],
): Page<Item> {
  const items = rows.slice(0, request.pageSize).map(toItem);
  const last = items[items.length - 1];
  return { items, nextAfter: rows.length > request.pageSize && last !== undefined ? keyOf(last) : undefined };
}

export function limitFor(request: PageRequest): number {
  return request.pageSize + 1;
}

export function timeIdKey(item: { createTime: Date; id: string }): string[] {
  return [item.createTime.toISOString(), item.id];
}

/**
 * `(time, id) > (after)` for lists ordered by creation time then id (`<` when newest come
 * first). A token is client input: its parts are checked before they reach a typed comparison.
 */
export function afterTimeId(
  timeColumn: string,
  idColumn: string,
  after: readonly string[],
  direction: 'asc' | 'desc' = 'asc',
): RawBuilder<boolean> {
  const [time, id] = after;
  if (time === undefined || id === undefined || Number.isNaN(Date.parse(time)) || !isUuid(id)) {
    throw invalidField('pageToken', 'is not a nextPageToken from a previous answer of this list');
  }
  const operator = sql.raw(direction === 'asc' ? '>' : '<');
  return sql<boolean>`(${sql.ref(timeColumn)}, ${sql.ref(idColumn)}) ${operator} (${new Date(time)}, ${id}::uuid)`;
}
