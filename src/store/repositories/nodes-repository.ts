/** The registry of running processes behind the Store port's NodesRepository. */
import { sql, type Kysely, type Selectable } from 'kysely';
import { PROCESS_ROLES, type ProcessRole } from '../../domain/process-roles.js';
import type { NodeRecord, NodesRepository } from '../../services/kit/store-port.js';
import type { Database, NodesTable } from '../database-schema.js';

/** jsonb arrives parsed from a server and from PGlite alike; a string is parsed for safety. */
function jsonEntries(value: unknown): [string, unknown][] {
  const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
    ? Object.entries(parsed)
    : [];
}

/** The entries of a jsonb object whose values are strings (addresses). */
function strings(value: unknown): Record<string, string> {
  return Object.fromEntries(
    jsonEntries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/** The entries of a jsonb object whose values are numbers (capacity, load). */
function numbers(value: unknown): Record<string, number> {
  return Object.fromEntries(
    jsonEntries(value).filter((entry): entry is [string, number] => typeof entry[1] === 'number'),
  );
}

/** A role a later release added reads as unknown to this one: it is left out rather than guessed. */
function knownRoles(roles: readonly string[]): ProcessRole[] {
  return PROCESS_ROLES.filter((role) => roles.includes(role));
}

function toNode(row: Selectable<NodesTable>): NodeRecord {
  return {
    id: row.id,
    roles: knownRoles(row.roles),
    version: row.version,
    hostname: row.hostname,
    pid: row.pid,
    addresses: strings(row.addresses),
    capacity: numbers(row.capacity),
    load: numbers(row.load),
    startedAt: row.started_at,
    heartbeatAt: row.heartbeat_at,
    leaseExpiresAt: row.lease_expires_at,
    generation: Number(row.generation),
  };
}

const nextGeneration = sql<string>`nextval('node_generations')`;

export function createNodesRepository(db: Kysely<Database>): NodesRepository {
  return {
    async register(node) {
      const values = {
        roles: [...node.roles],
        version: node.version,
        hostname: node.hostname,
        pid: node.pid,
        addresses: JSON.stringify(node.addresses),
        capacity: JSON.stringify(node.capacity),
        load: JSON.stringify(node.load),
        started_at: node.startedAt,
        heartbeat_at: node.heartbeatAt,
        lease_expires_at: node.leaseExpiresAt,
        generation: nextGeneration,
      };
      const row = await db
        .insertInto('nodes')
        .values({ id: node.id, ...values })
        .onConflict((oc) => oc.column('id').doUpdateSet(values))
        .returningAll()
        .executeTakeFirstOrThrow();
      return toNode(row);
    },
    async heartbeat(id, beat) {
      const row = await db
        .updateTable('nodes')
        .set({
          heartbeat_at: beat.now,
          lease_expires_at: beat.leaseExpiresAt,
          load: JSON.stringify(beat.load),
          // A lease that lapsed may have been counted gone (its work handed on): taking it again is a new generation.
          generation: sql<string>`case when lease_expires_at < ${beat.now} then nextval('node_generations') else generation end`,
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row === undefined ? undefined : toNode(row);
    },
    async remove(id) {
      await db.deleteFrom('nodes').where('id', '=', id).execute();
    },
    async list() {
      const rows = await db.selectFrom('nodes').selectAll().orderBy('roles').orderBy('started_at').execute();
      return rows.map(toNode);
    },
    async prune(heartbeatBefore) {
      const result = await db
        .deleteFrom('nodes')
        .where('heartbeat_at', '<', heartbeatBefore)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
