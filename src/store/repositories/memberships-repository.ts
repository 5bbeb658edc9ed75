/**
 * Account memberships behind the Store port's MembershipsRepository, with the last-owner rule kept under a
 * lock.
 */
import { sql, type Kysely } from 'kysely';
import type { MembershipsRepository, MembershipView } from '../../services/kit/store-port.js';
import type { Database } from '../database-schema.js';
import { limitFor, toPage } from '../keyset-page.js';

export function createMembershipsRepository(db: Kysely<Database>): MembershipsRepository {
  const view = () =>
    db
      .selectFrom('memberships as m')
      .innerJoin('accounts as a', 'a.id', 'm.account_id')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select([
        'm.account_id',
        'a.name as account_name',
        'a.create_time as account_create_time',
        'm.user_id',
        'u.email',
        'u.kind',
        'm.role',
        'm.create_time',
      ]);
  type Row = Awaited<ReturnType<ReturnType<typeof view>['executeTakeFirstOrThrow']>>;
  const toView = (row: Row): MembershipView => ({
    accountId: row.account_id,
    accountName: row.account_name,
    accountCreateTime: row.account_create_time,
    userId: row.user_id,
    email: row.email,
    userKind: row.kind,
    role: row.role,
    createTime: row.create_time,
  });

  return {
    async insert(accountId, userId, role, createTime) {
      const row = await db
        .insertInto('memberships')
        .values({ account_id: accountId, user_id: userId, role, create_time: createTime })
        .onConflict((oc) => oc.columns(['account_id', 'user_id']).doNothing())
        .returning('user_id')
        .executeTakeFirst();
      return row ? 'created' : 'duplicate';
    },
    async find(accountName, userId) {
      const row = await view()
        .where('a.name', '=', accountName)
        .where('m.user_id', '=', userId)
        .executeTakeFirst();
      return row && toView(row);
    },
    async findByEmail(accountId, email) {
      const row = await view()
        .where('m.account_id', '=', accountId)
        .where('u.email', '=', email)
        .executeTakeFirst();
      return row && toView(row);
    },
    async listForAccount(accountId, page) {
      let query = view().where('m.account_id', '=', accountId);
      if (page.after) query = query.where('u.email', '>', page.after[0] ?? '');
      const rows = await query.orderBy('u.email').limit(limitFor(page)).execute();
      return toPage(rows, page, toView, (m) => [m.email]);
    },
    async listForUser(userId, page) {
      let query = view().where('m.user_id', '=', userId);
      if (page.after) query = query.where('a.name', '>', page.after[0] ?? '');
      const rows = await query.orderBy('a.name').limit(limitFor(page)).execute();
      return toPage(rows, page, toView, (m) => [m.accountName]);
    },
    async updateRole(accountId, userId, role) {
      await db
        .updateTable('memberships')
        .set({ role })
        .where('account_id', '=', accountId)
        .where('user_id', '=', userId)
        .execute();
    },
    async remove(accountId, userId) {
      await db
        .deleteFrom('memberships')
        .where('account_id', '=', accountId)
        .where('user_id', '=', userId)
        .execute();
    },
    async countOwners(accountId) {
      // Locks the owner rows so that two concurrent demotions cannot both see "another owner".
      const rows = await sql<{
        user_id: string;
      }>`select user_id from memberships where account_id = ${accountId} and role = 'owner' for update`.execute(
        db,
      );
      return rows.rows.length;
    },
  };
}
