/** Long-running operations behind the Store port's OperationsRepository. */
import type { Kysely, Selectable } from 'kysely';
import type { OperationResultKind, StatusBody } from '../../domain/operation.js';
import type { OperationRecord, OperationsRepository } from '../../services/kit/store-port.js';
import type { Database, OperationsTable } from '../database-schema.js';

function toOperation(row: Selectable<OperationsTable>): OperationRecord {
  return {
    environmentId: row.environment_id,
    operationId: row.operation_id,
    buildId: row.build_id,
    done: row.done,
    error: (row.error ?? null) as StatusBody | null,
    resultKind: row.result_kind as OperationResultKind | null,
    createTime: row.create_time,
    updateTime: row.update_time,
  };
}

function toRow(record: OperationRecord) {
  return {
    build_id: record.buildId,
    done: record.done,
    error: record.error === null ? null : JSON.stringify(record.error),
    result_kind: record.resultKind,
    update_time: record.updateTime,
  };
}

export function createOperationsRepository(db: Kysely<Database>): OperationsRepository {
  return {
    async insert(record) {
      await db
        .insertInto('operations')
        .values({
          ...toRow(record),
          environment_id: record.environmentId,
          operation_id: record.operationId,
          create_time: record.createTime,
        })
        .execute();
    },
    async find(environmentId, operationId) {
      const row = await db
        .selectFrom('operations')
        .selectAll()
        .where('environment_id', '=', environmentId)
        .where('operation_id', '=', operationId)
        .executeTakeFirst();
      return row && toOperation(row);
    },
    async listUndone(resultKind, environmentId) {
      let query = db
        .selectFrom('operations')
        .selectAll()
        .where('done', '=', false)
        .where('result_kind', '=', resultKind);
      if (environmentId !== undefined) query = query.where('environment_id', '=', environmentId);
      const rows = await query.orderBy('create_time').execute();
      return rows.map(toOperation);
    },
    async update(record) {
      await db
        .updateTable('operations')
        .set(toRow(record))
        .where('environment_id', '=', record.environmentId)
        .where('operation_id', '=', record.operationId)
        .execute();
    },
  };
}
