/**
 * The placements table behind the Store port's PlacementsRepository: deployments asked for, claimed by
 * runtime processes with SKIP LOCKED, held under leases, and asked for again when a holder goes.
 */
import type { Kysely, Selectable } from 'kysely';
import type { PlacedArtifact, PlacementRecord, PlacementsRepository } from '../../services/kit/store-port.js';
import type { Database, PlacementsTable } from '../database-schema.js';

function toPlacement(row: Selectable<PlacementsTable>): PlacementRecord {
  return {
    id: row.id,
    environmentId: row.environment_id,
    buildId: row.build_id,
    state: row.state as PlacementRecord['state'],
    artifact: row.artifact === '' ? undefined : (JSON.parse(row.artifact) as PlacedArtifact),
    holder: row.holder,
    holderGeneration: row.holder_generation,
    address: row.address,
    kind: row.kind,
    nextRoutes: row.next_routes,
    reason: row.reason,
    leaseExpireTime: row.lease_expire_time,
    createTime: row.create_time,
    updateTime: row.update_time,
  };
}

const HELD = ['STARTING', 'READY'] as const;

export function createPlacementsRepository(db: Kysely<Database>): PlacementsRepository {
  return {
    async request(id, environmentId, buildId, artifact, now) {
      await db
        .insertInto('placements')
        .values({
          id,
          environment_id: environmentId,
          build_id: buildId,
          artifact: artifact === undefined ? '' : JSON.stringify(artifact),
          state: 'REQUESTED',
          create_time: now,
          update_time: now,
        })
        .execute();
    },
    async find(id) {
      const row = await db.selectFrom('placements').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toPlacement(row);
    },
    async claim(holder, address, leaseExpireTime, now) {
      // One statement: the oldest placement nobody holds becomes this runtime's, under a new generation.
      const row = await db
        .updateTable('placements')
        .set((eb) => ({
          state: 'STARTING',
          holder,
          address,
          holder_generation: eb('holder_generation', '+', 1),
          lease_expire_time: leaseExpireTime,
          update_time: now,
        }))
        .where(
          'id',
          '=',
          db
            .selectFrom('placements')
            .select('id')
            .where('state', '=', 'REQUESTED')
            .orderBy('create_time')
            .orderBy('id')
            .limit(1)
            .forUpdate()
            .skipLocked(),
        )
        .returningAll()
        .executeTakeFirst();
      return row && toPlacement(row);
    },
    async settle(id, holder, generation, outcome, now) {
      const result = await db
        .updateTable('placements')
        .set(
          outcome.state === 'READY'
            ? { state: 'READY', kind: outcome.kind, next_routes: outcome.nextRoutes, update_time: now }
            : { state: 'FAILED', reason: outcome.reason, holder: '', address: '', update_time: now },
        )
        .where('id', '=', id)
        .where('holder', '=', holder)
        .where('holder_generation', '=', generation)
        .where('state', '=', 'STARTING')
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
    async renew(holder, leaseExpireTime) {
      const rows = await db
        .updateTable('placements')
        .set({ lease_expire_time: leaseExpireTime })
        .where('holder', '=', holder)
        .where('state', 'in', HELD)
        .returning(['id', 'holder_generation'])
        .execute();
      return rows.map((row) => ({ id: row.id, generation: row.holder_generation }));
    },
    async reclaimExpired(now, maxClaims) {
      // A placement whose holder stopped renewing is asked for again, unless it was claimed too often
      // (an app that takes every runtime down with it): then it fails with the reason.
      const failed = await db
        .updateTable('placements')
        .set({
          state: 'FAILED',
          holder: '',
          address: '',
          reason: `its runtime process stopped renewing its lease ${String(maxClaims)} times`,
          update_time: now,
        })
        .where('state', 'in', HELD)
        .where('lease_expire_time', '<', now)
        .where('holder_generation', '>=', maxClaims)
        .returningAll()
        .execute();
      const requested = await db
        .updateTable('placements')
        .set({ state: 'REQUESTED', holder: '', address: '', lease_expire_time: null, update_time: now })
        .where('state', 'in', HELD)
        .where('lease_expire_time', '<', now)
        .returningAll()
        .execute();
      return { requested: requested.map(toPlacement), failed: failed.map(toPlacement) };
    },
    async release(id, holder) {
      await db
        .updateTable('placements')
        .set({ state: 'REQUESTED', holder: '', address: '', lease_expire_time: null })
        .where('id', '=', id)
        .where('holder', '=', holder)
        .where('state', 'in', HELD)
        .execute();
    },
    async remove(id) {
      await db.deleteFrom('placements').where('id', '=', id).execute();
    },
    async listHeld(holder) {
      const rows = await db.selectFrom('placements').selectAll().where('holder', '=', holder).execute();
      return rows.map(toPlacement);
    },
    async listServing(now) {
      const rows = await db
        .selectFrom('placements as p')
        .innerJoin('environments as e', (join) =>
          join.onRef('e.id', '=', 'p.environment_id').onRef('e.live_build_id', '=', 'p.build_id'),
        )
        .selectAll('p')
        .where('p.state', '=', 'READY')
        .where('p.lease_expire_time', '>', now)
        .execute();
      return rows.map(toPlacement);
    },
    async listReplaced() {
      // Placements of a build that is no longer live, once the live build is READY somewhere (or the
      // environment has no live build any more): their holders drain and stop them.
      const rows = await db
        .selectFrom('placements as p')
        .innerJoin('environments as e', 'e.id', 'p.environment_id')
        .selectAll('p')
        .where((eb) =>
          eb.or([
            eb('e.live_build_id', 'is', null),
            eb.and([
              eb('e.live_build_id', '!=', eb.ref('p.build_id')),
              eb.exists(
                eb
                  .selectFrom('placements as q')
                  .select('q.id')
                  .whereRef('q.environment_id', '=', 'p.environment_id')
                  .whereRef('q.build_id', '=', 'e.live_build_id')
                  .where('q.state', '=', 'READY'),
              ),
            ]),
          ]),
        )
        .where('p.state', 'in', ['READY', 'FAILED'])
        .execute();
      return rows.map(toPlacement);
    },
    async requestMissing(newId, now) {
      // Live environments with no placement of their live build (a first start on a shared store, a
      // placement that was removed): each gets one. A FAILED one counts: it is not retried in a loop.
      const rows = await db
        .selectFrom('environments as e')
        .select(['e.id', 'e.live_build_id'])
        .where('e.live_build_id', 'is not', null)
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('placements as p')
                .select('p.id')
                .whereRef('p.environment_id', '=', 'e.id')
                .whereRef('p.build_id', '=', 'e.live_build_id'),
            ),
          ),
        )
        .execute();
      const asked: PlacementRecord[] = [];
      for (const row of rows) {
        if (row.live_build_id === null) continue;
        const inserted = await db
          .insertInto('placements')
          .values({
            id: newId(),
            environment_id: row.id,
            build_id: row.live_build_id,
            state: 'REQUESTED',
            create_time: now,
            update_time: now,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        asked.push(toPlacement(inserted));
      }
      return asked;
    },
  };
}
