import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { SiteReportRecord, Store } from '../../src/services/kit/store-port.js';
import { createStore } from '../../src/store/create-store.js';
import { openServerDatabase } from '../../src/store/open-database.js';
import { runCli, startServer, type RunningServer } from '../helpers/atoll-process.js';
import { eventually } from '../helpers/build-harness.js';
import { seedEnvironments } from '../helpers/seed-environments.js';
import { TestSmtpServer } from '../helpers/smtp-server.js';
import { createServerDatabase } from '../helpers/test-store.js';

const SERVER_URL = process.env.DATABASE_URL;
const FULL_TEMPLATE = '5f0c6b1e-8d3a-4c2b-9e71-2a4f6d8c0b11';

/**
 * A scheduler process killed with SIGKILL while the mail relay holds a report (it has the whole
 * message, its answer has not come): the next scheduler must not mail it again, and the report
 * says why that recipient is FAILED. The recipient never handed over is still mailed.
 */
describe(
  'a report in flight when its scheduler is killed',
  {
    skip: SERVER_URL ? false : 'DATABASE_URL is unset: processes of role scheduler need a PostgreSQL server',
  },
  () => {
    let database: { url: string; drop: () => Promise<void> };
    let store: Store;
    let smtp: TestSmtpServer;
    let env: Record<string, string>;
    // One data folder for both schedulers in turn: the report's rendered files stay there.
    const dataDir = mkdtempSync(join(tmpdir(), 'atoll-e2e-reports-crash-'));
    const running: RunningServer[] = [];

    before(async () => {
      database = await createServerDatabase(SERVER_URL ?? '');
      smtp = await TestSmtpServer.start();
      env = {
        DATABASE_URL: database.url,
        // A URL without a user name means the OS user's, which the children's bare environment lacks.
        PGUSER: process.env.PGUSER ?? process.env.USER ?? 'postgres',
        ATOLL_SECRET_KEY: randomBytes(32).toString('base64'),
        ATOLL_DATA_DIR: dataDir,
        ATOLL_ROLES: 'scheduler',
        ATOLL_SMTP_URL: smtp.url,
        ATOLL_REPORT_POLL_MS: '100',
        // Longer than the test: the killed scheduler is still waiting for the relay's answer.
        ATOLL_SMTP_TIMEOUT_MS: '600000',
      };
      const migrated = runCli(['migrate'], env);
      assert.equal(migrated.status, 0, migrated.stderr);
      store = createStore(openServerDatabase(database.url, 2));
    });

    after(async () => {
      for (const server of running) if (server.child.exitCode === null) await server.stop();
      await store.close();
      await smtp.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    async function onlyReport(environmentId: string): Promise<SiteReportRecord | undefined> {
      return (await store.reports.listReports(environmentId, 0, 10)).reports[0];
    }

    it('kill -9 with a message in flight: not mailed again, the recipient says why (prevents a report mailed twice after a scheduler crash)', async () => {
      const now = new Date();
      const environmentId = randomUUID();
      await seedEnvironments(store, now, [environmentId]);
      await store.reports.insertSchedule({
        id: randomUUID(),
        environmentId,
        title: 'Site report',
        templateUuid: FULL_TEMPLATE,
        frequency: { unit: 'DAYS', value: 7 },
        recipients: [
          { name: 'Ops', email: 'ops@acme.test' },
          { name: 'Lead', email: 'lead@acme.test' },
        ],
        sections: ['cover', 'overview'],
        next: { instant: now, offsetMinutes: 0 },
        lastPeriodEnd: null,
        createTime: now,
        updateTime: now,
      });

      // The relay keeps the first message and holds its answer; the scheduler is killed meanwhile.
      smtp.holdReplies(true);
      const first = await startServer(env, 120_000);
      running.push(first);
      await smtp.waitFor(1, 60_000);
      first.child.kill('SIGKILL');
      await first.exited;
      smtp.holdReplies(false);
      assert.deepEqual(
        smtp.messages.map((m) => m.to),
        [['ops@acme.test']],
      );
      const held = await onlyReport(environmentId);
      assert.equal(held?.deliveryState, 'PENDING');

      // Its 15-minute lease lapses (moved, not waited for); the next scheduler takes the report over.
      const lapsed = new pg.Client({ connectionString: database.url, user: env.PGUSER });
      await lapsed.connect();
      try {
        await lapsed.query('update site_reports set next_attempt_time = now() where environment_id = $1', [
          environmentId,
        ]);
      } finally {
        await lapsed.end();
      }
      const second = await startServer(env, 120_000);
      running.push(second);
      let settled: SiteReportRecord | undefined;
      const done = await eventually(async () => {
        settled = await onlyReport(environmentId);
        return settled !== undefined && settled.deliveryState !== 'PENDING';
      }, 30_000);
      await second.stop();
      assert.ok(done && settled, `the second scheduler did not settle the report:\n${second.logs()}`);

      assert.deepEqual(
        smtp.messages.map((m) => m.to),
        [['ops@acme.test'], ['lead@acme.test']],
        'the message in flight was not mailed again; the other recipient got it once',
      );
      assert.equal(settled.deliveryState, 'FAILED');
      assert.deepEqual(
        settled.recipients.map((r) => [r.email, r.state]),
        [
          ['ops@acme.test', 'FAILED'],
          ['lead@acme.test', 'SENT'],
        ],
      );
      assert.match(
        settled.recipients[0]?.error ?? '',
        /scheduler stopped while handing this message to the mail server; it may have arrived, so it is not sent again/,
      );
    });
  },
);
