/** Domain mappings, domain claims and certificates behind the Store port's DomainMappingsRepository. */
import { sql, type Kysely, type Selectable } from 'kysely';
import type {
  CertificateState,
  DnsCheckResult,
  DomainMappingState,
} from '../../domain/domains/domain-mapping.js';
import type {
  DomainClaim,
  DomainMappingRecord,
  DomainMappingsRepository,
  StoredCertificate,
} from '../../services/kit/store-port.js';
import type { Database, DomainMappingsTable } from '../database-schema.js';
import { afterTimeId, limitFor, timeIdKey, toPage } from '../keyset-page.js';

function toMapping(row: Selectable<DomainMappingsTable>): DomainMappingRecord {
  return {
    id: row.id,
    environmentId: row.environment_id,
    accountId: row.account_id,
    domain: row.domain,
    primary: row.is_primary,
    destination: row.destination_domain,
    state: row.state as DomainMappingState,
    stateReason: row.state_reason,
    txtName: row.txt_name,
    txtValue: row.txt_value,
    verifyTime: row.verify_time,
    txtCheckTime: row.txt_check_time,
    txtFound: row.txt_found,
    dnsCheck: row.dns_check as DnsCheckResult,
    dnsCheckDetail: row.dns_check_detail,
    dnsCheckTime: row.dns_check_time,
    certificateState: row.certificate_state as CertificateState,
    certificateDetail: row.certificate_detail,
    certificateExpireTime: row.certificate_expire_time,
    certificateAttempts: row.certificate_attempts,
    certificateNextAttemptTime: row.certificate_next_attempt_time,
    certificateCheckTime: row.certificate_check_time,
    createTime: row.create_time,
    updateTime: row.update_time,
  };
}

function toRow(record: DomainMappingRecord) {
  return {
    is_primary: record.primary,
    destination_domain: record.destination,
    state: record.state,
    state_reason: record.stateReason,
    verify_time: record.verifyTime,
    txt_check_time: record.txtCheckTime,
    txt_found: record.txtFound,
    dns_check: record.dnsCheck,
    dns_check_detail: record.dnsCheckDetail,
    dns_check_time: record.dnsCheckTime,
    certificate_state: record.certificateState,
    certificate_detail: record.certificateDetail,
    certificate_expire_time: record.certificateExpireTime,
    certificate_attempts: record.certificateAttempts,
    certificate_next_attempt_time: record.certificateNextAttemptTime,
    certificate_check_time: record.certificateCheckTime,
    update_time: record.updateTime,
  };
}

export function createDomainMappingsRepository(db: Kysely<Database>): DomainMappingsRepository {
  return { ...mappingQueries(db), ...claimQueries(db), ...certificateQueries(db) };
}

/** Domain mappings of environments, and the routes of the active ones. */
function mappingQueries(
  db: Kysely<Database>,
): Pick<
  DomainMappingsRepository,
  | 'insert'
  | 'update'
  | 'delete'
  | 'find'
  | 'findById'
  | 'listAll'
  | 'list'
  | 'findInAccount'
  | 'listActiveRoutes'
  | 'listInStates'
> {
  return {
    async insert(record) {
      await db
        .insertInto('domain_mappings')
        .values({
          ...toRow(record),
          id: record.id,
          environment_id: record.environmentId,
          account_id: record.accountId,
          domain: record.domain,
          txt_name: record.txtName,
          txt_value: record.txtValue,
          create_time: record.createTime,
        })
        .execute();
    },
    async update(record) {
      await db.updateTable('domain_mappings').set(toRow(record)).where('id', '=', record.id).execute();
    },
    async delete(id) {
      await db.deleteFrom('domain_mappings').where('id', '=', id).execute();
    },
    async find(environmentId, domain) {
      const row = await db
        .selectFrom('domain_mappings')
        .selectAll()
        .where('environment_id', '=', environmentId)
        .where('domain', '=', domain)
        .executeTakeFirst();
      return row && toMapping(row);
    },
    async findById(id, forUpdate = false) {
      let query = db.selectFrom('domain_mappings').selectAll().where('id', '=', id);
      if (forUpdate) query = query.forUpdate();
      const row = await query.executeTakeFirst();
      return row && toMapping(row);
    },
    async listAll(environmentId) {
      const rows = await db
        .selectFrom('domain_mappings')
        .selectAll()
        .where('environment_id', '=', environmentId)
        .orderBy('create_time')
        .orderBy('id')
        .execute();
      return rows.map(toMapping);
    },
    async list(environmentId, page) {
      let query = db.selectFrom('domain_mappings').selectAll().where('environment_id', '=', environmentId);
      if (page.after) query = query.where(afterTimeId('create_time', 'id', page.after));
      const rows = await query.orderBy('create_time').orderBy('id').limit(limitFor(page)).execute();
      return toPage(rows, page, toMapping, timeIdKey);
    },
    async findInAccount(accountId, domain) {
      const rows = await db
        .selectFrom('domain_mappings')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('domain', '=', domain)
        .where('state', '<>', 'DELETING')
        .execute();
      return rows.map(toMapping);
    },
    async listActiveRoutes() {
      const rows = await db
        .selectFrom('domain_mappings')
        .innerJoin('environments', 'environments.id', 'domain_mappings.environment_id')
        .select([
          'domain_mappings.domain',
          'domain_mappings.environment_id',
          'domain_mappings.destination_domain',
          'environments.https_redirect',
        ])
        .where('domain_mappings.state', '=', 'ACTIVE')
        .orderBy('domain_mappings.domain')
        .execute();
      return rows.map((row) => ({
        domain: row.domain,
        environmentId: row.environment_id,
        destination: row.destination_domain,
        httpsRedirect: row.https_redirect,
      }));
    },
    async listInStates(states) {
      if (states.length === 0) return [];
      const rows = await db
        .selectFrom('domain_mappings')
        .selectAll()
        .where('state', 'in', states)
        .orderBy('create_time')
        .orderBy('id')
        .execute();
      return rows.map(toMapping);
    },
  };
}

/** Certificates falling due, and who claims a domain across accounts. */
function claimQueries(
  db: Kysely<Database>,
): Pick<DomainMappingsRepository, 'listCertificatesDue' | 'findClaim' | 'claim' | 'releaseClaimIfUnused'> {
  return {
    async listCertificatesDue(now, renewBefore) {
      const rows = await db
        .selectFrom('domain_mappings')
        .selectAll()
        .where('state', '=', 'ACTIVE')
        // Not waiting out a backoff, and either never issued (or failed), or expiring soon.
        .where((eb) =>
          eb.or([
            eb('certificate_next_attempt_time', 'is', null),
            eb('certificate_next_attempt_time', '<=', now),
          ]),
        )
        .where((eb) =>
          eb.or([
            eb('certificate_state', 'in', ['PENDING', 'FAILED']),
            eb.and([
              eb('certificate_state', '=', 'ISSUED'),
              eb('certificate_expire_time', '<=', renewBefore),
            ]),
          ]),
        )
        .orderBy('create_time')
        .execute();
      return rows.map(toMapping);
    },
    async findClaim(domain) {
      const row = await db
        .selectFrom('domain_claims')
        .selectAll()
        .where('domain', '=', domain)
        .executeTakeFirst();
      return row && { domain: row.domain, accountId: row.account_id, verifyTime: row.verify_time };
    },
    async claim(domain, accountId, time) {
      // The primary key settles a race between two accounts: whoever inserted first holds it.
      await db
        .insertInto('domain_claims')
        .values({ domain, account_id: accountId, verify_time: time })
        .onConflict((oc) => oc.column('domain').doNothing())
        .execute();
      const row = await db
        .selectFrom('domain_claims')
        .selectAll()
        .where('domain', '=', domain)
        .executeTakeFirstOrThrow();
      return {
        domain: row.domain,
        accountId: row.account_id,
        verifyTime: row.verify_time,
      } satisfies DomainClaim;
    },
    async releaseClaimIfUnused(domain, accountId) {
      await db
        .deleteFrom('domain_claims')
        .where('domain', '=', domain)
        .where('account_id', '=', accountId)
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('domain_mappings')
                .select(sql<number>`1`.as('one'))
                .where('domain_mappings.domain', '=', domain)
                .where('domain_mappings.account_id', '=', accountId),
            ),
          ),
        )
        .execute();
    },
  };
}

/** The certificates of mappings. */
function certificateQueries(
  db: Kysely<Database>,
): Pick<DomainMappingsRepository, 'saveCertificate' | 'deleteCertificate' | 'listServedCertificates'> {
  return {
    async saveCertificate(certificate) {
      const values = {
        chain_pem: certificate.chainPem,
        key_sealed: certificate.keySealed,
        not_after: certificate.notAfter,
        issue_time: certificate.issueTime,
      };
      await db
        .insertInto('domain_certificates')
        .values({ ...values, mapping_id: certificate.mappingId })
        .onConflict((oc) => oc.column('mapping_id').doUpdateSet(values))
        .execute();
    },
    async deleteCertificate(mappingId) {
      await db.deleteFrom('domain_certificates').where('mapping_id', '=', mappingId).execute();
    },
    async listServedCertificates(mappingId) {
      let query = db
        .selectFrom('domain_certificates')
        .innerJoin('domain_mappings', 'domain_mappings.id', 'domain_certificates.mapping_id')
        .select([
          'domain_certificates.mapping_id',
          'domain_mappings.domain',
          'domain_certificates.chain_pem',
          'domain_certificates.key_sealed',
          'domain_certificates.not_after',
          'domain_certificates.issue_time',
        ])
        .where('domain_mappings.state', '=', 'ACTIVE');
      if (mappingId !== undefined) query = query.where('domain_certificates.mapping_id', '=', mappingId);
      const rows = await query.orderBy('domain_mappings.domain').execute();
      return rows.map((row): StoredCertificate => ({
        mappingId: row.mapping_id,
        domain: row.domain,
        chainPem: row.chain_pem,
        keySealed: row.key_sealed,
        notAfter: row.not_after,
        issueTime: row.issue_time,
      }));
    },
  };
}
