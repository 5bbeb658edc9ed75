import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { BuildHarness } from '../helpers/build-harness.js';
import { TestSmtpServer } from '../helpers/smtp-server.js';

const FULL_TEMPLATE = '5f0c6b1e-8d3a-4c2b-9e71-2a4f6d8c0b11';

async function pdfText(pdf: Uint8Array): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'atoll-pdf-'));
  try {
    const file = join(dir, 'report.pdf');
    await writeFile(file, pdf);
    const { stdout } = await promisify(execFile)('/usr/bin/pdftotext', ['-layout', file, '-']);
    return stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('site reports of a live site, e-mailed over SMTP', () => {
  let h: BuildHarness;
  let smtp: TestSmtpServer;
  let buildId: string;

  before(async () => {
    smtp = await TestSmtpServer.start();
    h = await BuildHarness.start({
      buildEnv: {
        ATOLL_SMTP_URL: smtp.url,
        ATOLL_MAIL_FROM: 'Acme Reports <reports@acme.test>',
        ATOLL_WEBHOOK_ALLOW_PRIVATE: '1',
      },
    });
    await h.api.startHosting();
    const upload = await h.upload('02-build-with-dependency');
    buildId = upload.buildId;
    await h.waitDone(upload.operation);
  });
  after(async () => {
    await h.stop();
    await smtp.close();
  });

  it('sends each recipient the report with its HTML body and a PDF of the site’s real figures', async () => {
    for (let i = 0; i < 11; i += 1) assert.equal((await h.edge('/')).status, 200);
    for (let i = 0; i < 2; i += 1) assert.equal((await h.edge('/no-such-page')).status, 404);
    await h.api.services.usageMeter.flush();
    for (let i = 0; i < 3; i += 1) await h.api.services.healthProber.probeOnce();
    const subscription = await h.api.request('POST', '/v1/accounts/acme/eventSubscriptions', {
      auth: h.owner,
      body: { targetUrl: 'http://127.0.0.1:9/hook', eventTypes: ['report.sent'] },
    });
    assert.equal(subscription.status, 200, subscription.text);

    const created = await h.api.request('POST', '/v1/site_reports/schedules', {
      auth: h.owner,
      body: {
        site_id: h.envId,
        title: 'Weekly report',
        next_scheduled_date: new Date(Date.now() + 86_400_000).toISOString(),
        template_uuid: FULL_TEMPLATE,
        frequency: { unit: 'DAYS', value: 7 },
        recipients: [
          { name: 'Ada Ops', email: 'ada@acme.test' },
          { name: 'Bo Dev', email: 'bo@acme.test' },
        ],
      },
    });
    assert.equal(created.status, 201, created.text);
    const run = await h.api.request(
      'POST',
      `/v1/site_reports/schedules/${String(created.body.schedule.schedule_id)}:run`,
      {
        auth: h.owner,
      },
    );
    assert.equal(run.status, 201, run.text);
    assert.equal(run.body.message, 'Report generated and sent');
    assert.equal(run.body.report.delivery.status, 'SENT');
    assert.deepEqual(
      run.body.report.recipients.map((r: any) => r.status),
      ['SENT', 'SENT'],
    );

    const messages = await smtp.waitFor(2);
    assert.deepEqual(
      messages.map((m) => m.to),
      [['ada@acme.test'], ['bo@acme.test']],
    );
    for (const message of messages) {
      const mail = message.parsed;
      assert.equal(mail.from?.address, 'reports@acme.test');
      assert.equal(mail.to?.[0]?.name, message.to[0] === 'ada@acme.test' ? 'Ada Ops' : 'Bo Dev');
      assert.match(mail.subject ?? '', /^Weekly report: Production, \d{4}-\d{2}-\d{2} to \d{4}-\d{2}-\d{2}$/);
      assert.match(mail.html ?? '', /Weekly report/);
      assert.match(mail.html ?? '', /is-number/);
      assert.match(mail.text ?? '', /attached as a PDF/);
      const [attachment] = mail.attachments;
      assert.ok(attachment);
      assert.equal(attachment.mimeType, 'application/pdf');
      assert.match(attachment.filename ?? '', /^Weekly report \d{4}-\d{2}-\d{2}\.pdf$/);
      const text = await pdfText(new Uint8Array(attachment.content as ArrayBuffer));
      // The site's own figures: 13 requests (11 answered 2xx, 2 answered 4xx), the live build and what it is made with.
      assert.match(text, /Production/);
      assert.match(text, /\b13\b/);
      assert.match(text, /\b11\b/);
      assert.match(text, /100\.00 ?%/);
      assert.match(text, /no-such-page/);
      assert.match(text, new RegExp(buildId.slice(0, 8)));
      assert.match(text, /is-number/);
      assert.match(text, /7\.0\.0/);
      assert.match(text, /22\.\d+\.\d+/);
    }
    // The report is kept and downloadable, and report.sent went to the account's subscribers.
    const download = await fetch(
      String(run.body.report.download_url).replace('http://127.0.0.1:8080', h.api.url),
      {
        headers: { authorization: h.auth() },
      },
    );
    assert.equal(download.status, 200);
    assert.match(await pdfText(new Uint8Array(await download.arrayBuffer())), /\b13\b/);
    const deliveries = await h.api.request(
      'GET',
      `/v1/accounts/acme/eventSubscriptions/${String(subscription.body.name).split('/').pop()}/deliveries`,
      { auth: h.owner },
    );
    assert.equal(deliveries.status, 200, deliveries.text);
    assert.deepEqual(
      deliveries.body.deliveries.map((d: any) => d.eventType),
      ['report.sent'],
    );
  });

  it('answers 502 when the mail relay does not take the report, and keeps it for a retry', async () => {
    const created = await h.api.request('POST', '/v1/site_reports/schedules', {
      auth: h.owner,
      body: {
        site_id: h.envId,
        title: 'Relay down',
        next_scheduled_date: new Date(Date.now() + 86_400_000).toISOString(),
        template_uuid: FULL_TEMPLATE,
        frequency: { unit: 'MONTHLY', value: 1 },
        recipients: [{ name: 'Ada', email: 'ada@acme.test' }],
      },
    });
    smtp.failTemporarily(1);
    const run = await h.api.request(
      'POST',
      `/v1/site_reports/schedules/${String(created.body.schedule.schedule_id)}:run`,
      {
        auth: h.owner,
      },
    );
    assert.equal(run.status, 502, run.text);
    assert.match(run.body.message, /mail relay did not take it/);
    assert.match(run.body.message, /retried/);
    const list = await h.api.request('GET', `/v1/site_reports?site_id=${h.envId}`, { auth: h.owner });
    const kept = list.body.results.find((r: any) => r.title === 'Relay down');
    assert.equal(kept.delivery.status, 'PENDING');
    assert.equal(kept.delivery.attempts, 1);
    assert.ok(kept.delivery.next_attempt_at);
  });
});
