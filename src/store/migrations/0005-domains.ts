/** Migration 0005: custom domains, domain claims and certificates. */
import { sql, type Kysely } from 'kysely';

/**
 * Custom domains: each environment's domain mappings (with their TXT, DNS and certificate
 * checks), the domains each account has proven it controls, and the issued certificates with
 * their keys sealed. The environment keeps what its answers show of its mappings.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('domain_mappings')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('environment_id', 'uuid', (c) => c.notNull().references('environments.id').onDelete('cascade'))
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('is_primary', 'boolean', (c) => c.notNull())
    .addColumn('destination_domain', 'text')
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('state_reason', 'text', (c) => c.notNull())
    .addColumn('txt_name', 'text', (c) => c.notNull())
    .addColumn('txt_value', 'text', (c) => c.notNull())
    .addColumn('verify_time', 'timestamptz')
    .addColumn('txt_check_time', 'timestamptz')
    .addColumn('txt_found', 'text', (c) => c.notNull())
    .addColumn('dns_check', 'text', (c) => c.notNull())
    .addColumn('dns_check_detail', 'text', (c) => c.notNull())
    .addColumn('dns_check_time', 'timestamptz')
    .addColumn('certificate_state', 'text', (c) => c.notNull())
    .addColumn('certificate_detail', 'text', (c) => c.notNull())
    .addColumn('certificate_expire_time', 'timestamptz')
    .addColumn('certificate_attempts', 'integer', (c) => c.notNull())
    .addColumn('certificate_next_attempt_time', 'timestamptz')
    .addColumn('certificate_check_time', 'timestamptz')
    .addColumn('create_time', 'timestamptz', (c) => c.notNull())
    .addColumn('update_time', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('domain_mappings_environment_domain_key', ['environment_id', 'domain'])
    .execute();
  // One account maps a domain to one environment at a time (a domain moving between two of its
  // environments is DELETING in one while it is created in the other).
  await db.schema
    .createIndex('domain_mappings_account_domain_key')
    .on('domain_mappings')
    .columns(['account_id', 'domain'])
    .unique()
    .where(sql.ref('state'), '<>', 'DELETING')
    .execute();
  await db.schema.createIndex('domain_mappings_domain_idx').on('domain_mappings').column('domain').execute();
  await db.schema
    .createIndex('domain_mappings_environment_idx')
    .on('domain_mappings')
    .columns(['environment_id', 'create_time', 'id'])
    .execute();

  // The primary key is the rule that a domain belongs to at most one account.
  await db.schema
    .createTable('domain_claims')
    .addColumn('domain', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'uuid', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('verify_time', 'timestamptz', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('domain_certificates')
    .addColumn('mapping_id', 'uuid', (c) =>
      c.primaryKey().references('domain_mappings.id').onDelete('cascade'),
    )
    .addColumn('chain_pem', 'text', (c) => c.notNull())
    .addColumn('key_sealed', 'text', (c) => c.notNull())
    .addColumn('not_after', 'timestamptz', (c) => c.notNull())
    .addColumn('issue_time', 'timestamptz', (c) => c.notNull())
    .execute();

  await db.schema
    .alterTable('environments')
    .addColumn('domains', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('url_domain', 'text')
    .addColumn('url_https', 'boolean', (c) => c.notNull().defaultTo(false))
    // Whether plain-HTTP requests to its domains that have a certificate are answered with 301 to HTTPS.
    .addColumn('https_redirect', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
}
