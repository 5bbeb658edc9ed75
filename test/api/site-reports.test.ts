import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { TestApi, TestClock, type Answer, type Credentials } from '../helpers/test-api.js';

const FULL = '5f0c6b1e-8d3a-4c2b-9e71-2a4f6d8c0b11';
const USAGE = '9b2d4e6f-1a3c-4e5d-8f70-6c1b3a5d7e22';
const SCHEDULES = '/v1/site_reports/schedules';

/** The fields of the errors array, as `field:type:code`. */
function errorsOf(answer: Answer): string[] {
  assert.equal(answer.status, 400, answer.text);
  assert.equal(typeof answer.body.message, 'string');
  assert.match(answer.body.documentation_url, /\/docs\/api#site-reports-errors$/);
  return (answer.body.errors as any[]).map((e) => {
    assert.equal(typeof e.resource, 'string');
    assert.equal(typeof e.message, 'string');
    return `${String(e.field)}:${String(e.type)}:${String(e.code)}`;
  });
}

describe('site reports API', () => {
  let api: TestApi;
  const clock = new TestClock(Date.parse('2026-11-21T12:00:00Z'));
  let owner: Credentials;
  let site: string;
  let validBody: Record<string, unknown>;

  async function createSite(account: string, auth: Credentials): Promise<string> {
    const app = await api.request('POST', `/v1/accounts/${account}/apps?appId=web`, {
      auth,
      body: { region: 'regions/EU-W', uploadable: {} },
    });
    assert.equal(app.status, 200, app.text);
    const env = await api.request('POST', `/v1/accounts/${account}/apps/web/environments`, {
      auth,
      body: { displayName: 'Production', branch: 'uploadable' },
    });
    assert.equal(env.status, 200, env.text);
    const id = /environments\/([^/]+)\/operations/.exec(env.body.name as string)?.[1];
    assert.ok(id);
    return id;
  }

  before(async () => {
    api = await TestApi.start({ clock });
  });
  after(async () => {
    await api.close();
  });
  beforeEach(async () => {
    await api.reset();
    owner = await api.createTenant('acme');
    site = await createSite('acme', owner);
    validBody = {
      site_id: site,
      title: 'Monthly site report',
      next_scheduled_date: '2026-12-03T09:30:00+02:00',
      template_uuid: FULL,
      frequency: { unit: 'MONTHLY', value: 31 },
      recipients: [{ name: 'Ops', email: 'ops@acme.test' }],
      sections: ['cover', { name: 'usage' }, 'overview'],
    };
  });

  const create = (body: unknown, auth: Credentials = owner) => api.request('POST', SCHEDULES, { auth, body });

  describe('templates', () => {
    it('lists the built-in templates with their sections and both spellings of the brand colour', async () => {
      const answer = await api.request('GET', '/v1/site_reports/templates', { auth: owner });
      assert.equal(answer.status, 200, answer.text);
      const [full, usage] = answer.body.templates;
      assert.equal(full.template_uuid, FULL);
      assert.deepEqual(
        full.sections.map((s: any) => s.name),
        ['cover', 'overview', 'usage', 'builds', 'themes'],
      );
      assert.equal(usage.template_uuid, USAGE);
      assert.equal(full.brand_colour, full.brand_color);
      assert.match(full.brand_colour, /^#[0-9a-f]{6}$/);
      for (const key of ['template_name', 'description', 'company_name', 'logo_url', 'preview_image_url'])
        assert.equal(typeof full[key], 'string', key);
      // The pictures are real and public.
      const preview = await fetch(full.preview_image_url.replace('http://127.0.0.1:8080', api.url));
      assert.equal(preview.status, 200);
      assert.match(preview.headers.get('content-type') ?? '', /image\/svg\+xml/);
      assert.match(await preview.text(), /usage/);
      const logo = await fetch(full.logo_url.replace('http://127.0.0.1:8080', api.url));
      assert.equal(logo.status, 200);
    });

    it("takes the account's uid as account_id and refuses another account's", async () => {
      const uid = (await api.request('GET', '/v1/accounts/acme', { auth: owner })).body.uid as string;
      assert.equal(
        (await api.request('GET', `/v1/site_reports/templates?account_id=${uid}`, { auth: owner })).status,
        200,
      );
      const rival = await api.createTenant('rival');
      const rivalUid = (await api.request('GET', '/v1/accounts/rival', { auth: rival })).body.uid as string;
      const refused = await api.request('GET', `/v1/site_reports/templates?account_id=${rivalUid}`, {
        auth: owner,
      });
      assert.deepEqual(errorsOf(refused), ['account_id:access_error:not_accessible']);
      const malformed = await api.request('GET', '/v1/site_reports/templates?account_id=nope', {
        auth: owner,
      });
      assert.deepEqual(errorsOf(malformed), ['account_id:access_error:not_accessible']);
    });
  });

  describe('schedules', () => {
    it('creates a MONTHLY schedule on day N on or after the date given, keeping time and offset (201)', async () => {
      const answer = await create(validBody);
      assert.equal(answer.status, 201, answer.text);
      assert.equal(typeof answer.body.message, 'string');
      const schedule = answer.body.schedule;
      assert.match(schedule.schedule_id, /^[0-9a-f-]{36}$/);
      assert.equal(schedule.site_id, site);
      assert.equal(schedule.next_scheduled_date, '2026-12-31T09:30:00+02:00');
      assert.deepEqual(schedule.frequency, { unit: 'MONTHLY', value: 31 });
      // Sections given as strings and objects come back as names in the template's order.
      assert.deepEqual(schedule.sections, ['cover', 'overview', 'usage']);
      assert.deepEqual(schedule.recipients, [{ name: 'Ops', email: 'ops@acme.test' }]);

      const day1 = await create({ ...validBody, frequency: { unit: 'MONTHLY', value: 1 } });
      assert.equal(day1.body.schedule.next_scheduled_date, '2027-01-01T09:30:00+02:00');
      const weekly = await create({
        ...validBody,
        frequency: { unit: 'DAYS', value: 7 },
        sections: undefined,
      });
      assert.equal(weekly.body.schedule.next_scheduled_date, '2026-12-03T09:30:00+02:00');
      assert.deepEqual(weekly.body.schedule.sections, ['cover', 'overview', 'usage', 'builds', 'themes']);
    });

    it('names every broken rule in one answer, each with its type and code', async () => {
      const answer = await create({
        site_id: site,
        title: 'x'.repeat(201),
        next_scheduled_date: '2026-12-03T09:30:00',
        template_uuid: '00000000-0000-4000-8000-000000000000',
        frequency: { unit: 'DAYS', value: 8 },
        recipients: [{ name: '', email: 'not-an-email' }],
        colour: 'red',
      });
      assert.deepEqual(errorsOf(answer).sort(), [
        'colour:invalid_value:unknown_field',
        'frequency.value:invalid_value:out_of_range',
        'next_scheduled_date:invalid_value:invalid_format',
        'recipients[0].email:invalid_value:invalid_email',
        'recipients[0].name:invalid_value:blank',
        'template_uuid:value_unavailable:not_found',
        'title:invalid_value:too_long',
      ]);
      assert.ok(answer.body.errors.every((e: any) => e.resource === 'schedule'));
    });

    it('checks each field rule of docs/api.md', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ frequency: { unit: 'DAYS', value: 14 } }, ''],
        [{ frequency: { unit: 'DAYS', value: 30 } }, 'frequency.value:invalid_value:out_of_range'],
        [{ frequency: { unit: 'MONTHLY', value: 0 } }, 'frequency.value:invalid_value:out_of_range'],
        [{ frequency: { unit: 'MONTHLY', value: 32 } }, 'frequency.value:invalid_value:out_of_range'],
        [{ frequency: { unit: 'MONTHLY', value: 1.5 } }, 'frequency.value:invalid_value:out_of_range'],
        [{ frequency: { unit: 'WEEKLY', value: 7 } }, 'frequency.unit:invalid_value:invalid_choice'],
        [{ frequency: { unit: 'DAYS', value: 7, every: 2 } }, 'frequency.every:invalid_value:unknown_field'],
        [{ next_scheduled_date: '2026-12-03' }, 'next_scheduled_date:invalid_value:invalid_format'],
        [{ next_scheduled_date: '2026-11-20T12:00:00Z' }, 'next_scheduled_date:invalid_value:in_the_past'],
        [{ template_uuid: 'nope' }, 'template_uuid:value_unavailable:not_found'],
        [
          { template_uuid: USAGE, sections: ['cover', 'builds'] },
          'sections[1]:value_unavailable:not_in_template',
        ],
        [{ sections: ['cover', 'cover'] }, 'sections[1]:invalid_value:duplicate'],
        [{ sections: [] }, 'sections:invalid_value:empty'],
        [{ sections: [{ name: 'nope' }] }, 'sections[0]:value_unavailable:not_in_template'],
        [{ recipients: [] }, 'recipients:invalid_value:empty'],
        [
          {
            recipients: Array.from({ length: 26 }, (_, i) => ({
              name: `R${String(i)}`,
              email: `r${String(i)}@a.test`,
            })),
          },
          'recipients:invalid_value:too_many',
        ],
        [{ recipients: [{ name: 'A', email: 'a@b' }] }, 'recipients[0].email:invalid_value:invalid_email'],
        [
          {
            recipients: [
              { name: 'A', email: 'a@b.test' },
              { name: 'B', email: 'A@b.test' },
            ],
          },
          'recipients[1].email:invalid_value:duplicate',
        ],
        [
          { recipients: [{ name: 'A', email: 'a@b.test', cc: 'x' }] },
          'recipients[0].cc:invalid_value:unknown_field',
        ],
        [{ title: '' }, 'title:invalid_value:blank'],
        [{ title: 'x'.repeat(200) }, ''],
        [{ title: 5 }, 'title:invalid_value:invalid_type'],
        [{ site_id: 'nope' }, 'site_id:invalid_value:invalid_format'],
        [{ site_id: '00000000-0000-4000-8000-000000000000' }, 'site_id:access_error:not_accessible'],
        [{ title: undefined }, 'title:invalid_value:missing_field'],
      ];
      for (const [change, expected] of cases) {
        const answer = await create({ ...validBody, ...change });
        if (expected === '') assert.equal(answer.status, 201, `${JSON.stringify(change)}: ${answer.text}`);
        else assert.deepEqual(errorsOf(answer), [expected], JSON.stringify(change));
      }
    });

    it('refuses a title or recipient name that would add mail headers', async () => {
      const title = await create({ ...validBody, title: 'Report\r\nBcc: victim@example.com' });
      assert.deepEqual(errorsOf(title), ['title:invalid_value:invalid_characters']);
      const name = await create({
        ...validBody,
        recipients: [{ name: 'A\nBcc: x@y.test', email: 'a@b.test' }],
      });
      assert.deepEqual(errorsOf(name), ['recipients[0].name:invalid_value:invalid_characters']);
    });

    it('lists, reads, patches (any subset, realigning the date) and deletes', async () => {
      const id = (await create(validBody)).body.schedule.schedule_id as string;
      const list = await api.request('GET', `${SCHEDULES}?site_id=${site}`, { auth: owner });
      assert.equal(list.status, 200);
      assert.deepEqual(
        list.body.schedules.map((s: any) => s.schedule_id),
        [id],
      );
      assert.equal(
        (await api.request('GET', `${SCHEDULES}/${id}`, { auth: owner })).body.title,
        validBody.title,
      );

      const patched = await api.request('PATCH', `${SCHEDULES}/${id}`, {
        auth: owner,
        body: { title: 'Renamed', site_id: site, frequency: { unit: 'MONTHLY', value: 15 } },
      });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(typeof patched.body.message, 'string');
      assert.equal(patched.body.schedule.title, 'Renamed');
      // The stored date moves to the first 15th on or after it.
      assert.equal(patched.body.schedule.next_scheduled_date, '2027-01-15T09:30:00+02:00');
      assert.deepEqual(patched.body.schedule.recipients, validBody.recipients);

      const dated = await api.request('PATCH', `${SCHEDULES}/${id}`, {
        auth: owner,
        body: { next_scheduled_date: '2027-02-16T08:00:00Z' },
      });
      assert.equal(dated.body.schedule.next_scheduled_date, '2027-03-15T08:00:00Z');

      const template = await api.request('PATCH', `${SCHEDULES}/${id}`, {
        auth: owner,
        body: { template_uuid: USAGE },
      });
      assert.deepEqual(template.body.schedule.sections, ['cover', 'usage']);

      const moved = await api.request('PATCH', `${SCHEDULES}/${id}`, {
        auth: owner,
        body: { site_id: '00000000-0000-4000-8000-000000000000', sections: ['nope'] },
      });
      assert.deepEqual(errorsOf(moved).sort(), [
        'sections[0]:value_unavailable:not_in_template',
        'site_id:invalid_value:immutable',
      ]);
      const unknown = await api.request('PATCH', `${SCHEDULES}/${id}`, {
        auth: owner,
        body: { status: 'x' },
      });
      assert.deepEqual(errorsOf(unknown), ['status:invalid_value:unknown_field']);
      // Nothing of a refused PATCH was written.
      assert.equal((await api.request('GET', `${SCHEDULES}/${id}`, { auth: owner })).body.title, 'Renamed');

      const deleted = await api.request('DELETE', `${SCHEDULES}/${id}`, { auth: owner });
      assert.equal(deleted.status, 204);
      assert.equal(deleted.text, '');
      const gone = await api.request('GET', `${SCHEDULES}/${id}`, { auth: owner });
      assert.equal(gone.status, 404);
      assert.equal(gone.body.message, 'Not Found');
      assert.match(gone.body.documentation_url, /#site-reports-errors$/);
    });

    it('keeps at most 50 schedules per site', async () => {
      for (let i = 0; i < 50; i += 1) assert.equal((await create(validBody)).status, 201);
      assert.deepEqual(errorsOf(await create(validBody)), ['site_id:value_unavailable:limit_reached']);
    });
  });

  describe('answers', () => {
    it('answers 401 Bad Credentials for missing or wrong credentials, bodies unread', async () => {
      for (const auth of [null, { userId: owner.userId, password: 'wrong' }]) {
        const answer = await api.request('POST', SCHEDULES, {
          auth,
          rawBody: '{not json',
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(answer.status, 401);
        assert.equal(answer.body.message, 'Bad Credentials');
        assert.match(answer.body.documentation_url, /#site-reports-errors$/);
        assert.equal(answer.headers.get('www-authenticate'), 'Basic realm="atoll", charset="UTF-8"');
      }
    });

    it('answers 403 to a member whose role cannot change schedules, 404 for unknown routes and ids', async () => {
      const viewer = await api.addMember('acme', 'viewer@acme.test', 'viewer');
      const refused = await create(validBody, viewer);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.message, "You don't have permission to perform that action");
      assert.equal((await api.request('GET', `${SCHEDULES}?site_id=${site}`, { auth: viewer })).status, 200);

      for (const path of [
        '/v1/site_reports/nope/deeper',
        `${SCHEDULES}/not-a-uuid`,
        `${SCHEDULES}/${site}`,
      ]) {
        const answer = await api.request('GET', path, { auth: owner });
        assert.equal(answer.status, 404, path);
        assert.deepEqual(Object.keys(answer.body).sort(), ['documentation_url', 'message']);
      }
    });

    it('answers malformed JSON and a wrong content type in this API’s shape', async () => {
      const malformed = await api.request('POST', SCHEDULES, {
        auth: owner,
        rawBody: '{"title": ',
        headers: { 'content-type': 'application/json' },
      });
      assert.deepEqual(errorsOf(malformed), ['body:invalid_value:malformed_json']);
      const text = await api.request('POST', SCHEDULES, {
        auth: owner,
        rawBody: 'title=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(text.status, 415);
      assert.equal(typeof text.body.message, 'string');
    });

    it('answers 503 in this shape while shutting down', async () => {
      api.shuttingDown = true;
      try {
        const answer = await api.request('GET', `${SCHEDULES}?site_id=${site}`, { auth: owner });
        assert.equal(answer.status, 503);
        assert.equal(typeof answer.body.message, 'string');
        assert.equal(answer.body.code, undefined);
        assert.equal(answer.headers.get('retry-after'), '1');
      } finally {
        api.shuttingDown = false;
      }
    });

    it('points documentation_url at a real section of the served API docs', async () => {
      const answer = await create({});
      const url = new URL(answer.body.documentation_url as string);
      const page = await fetch(`${api.url}${url.pathname}`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), new RegExp(`id="${url.hash.slice(1)}"`));
    });
  });

  describe('tenancy', () => {
    it("hides another account's sites, schedules and reports", async () => {
      const id = (await create(validBody)).body.schedule.schedule_id as string;
      const run = await api.request('POST', `${SCHEDULES}/${id}:run?send=false`, { auth: owner });
      assert.equal(run.status, 201, run.text);
      const report = run.body.report.uuid as string;
      const rival = await api.createTenant('rival');
      assert.deepEqual(errorsOf(await create(validBody, rival)), ['site_id:access_error:not_accessible']);
      assert.deepEqual(errorsOf(await api.request('GET', `${SCHEDULES}?site_id=${site}`, { auth: rival })), [
        'site_id:access_error:not_accessible',
      ]);
      assert.deepEqual(
        errorsOf(await api.request('GET', `/v1/site_reports?site_id=${site}`, { auth: rival })),
        ['site_id:access_error:not_accessible'],
      );
      for (const [method, path] of [
        ['GET', `${SCHEDULES}/${id}`],
        ['PATCH', `${SCHEDULES}/${id}`],
        ['DELETE', `${SCHEDULES}/${id}`],
        ['POST', `${SCHEDULES}/${id}:run`],
        ['GET', `/v1/site_reports/${report}`],
        ['GET', `/v1/site_reports/${report}/download`],
      ] as const) {
        const answer = await api.request(method, path, {
          auth: rival,
          body: method === 'PATCH' ? { title: 'x' } : undefined,
        });
        assert.equal(answer.status, 404, `${method} ${path}`);
      }
      assert.equal(
        (await api.request('GET', `${SCHEDULES}/${id}`, { auth: owner })).body.title,
        validBody.title,
      );
    });
  });

  describe('reports', () => {
    it('makes a report now without sending it, lists it and serves it as PDF and HTML', async () => {
      const id = (await create(validBody)).body.schedule.schedule_id as string;
      const run = await api.request('POST', `${SCHEDULES}/${id}:run?send=false`, { auth: owner });
      assert.equal(run.status, 201, run.text);
      const report = run.body.report;
      assert.equal(report.delivery.status, 'NOT_REQUESTED');
      assert.equal(report.schedule_id, id);
      assert.equal(report.scheduled_for, null);
      assert.equal(report.date_range.end_date, clock.now().toISOString());
      // The first period is one frequency long: a month back.
      assert.equal(report.date_range.start_date, '2026-10-21T12:00:00.000Z');

      const list = await api.request('GET', `/v1/site_reports?site_id=${site}`, { auth: owner });
      assert.equal(list.status, 200);
      assert.equal(list.body.count, 1);
      assert.equal(list.body.previous, null);
      assert.equal(list.body.next, null);
      assert.equal(list.body.results[0].uuid, report.uuid);
      assert.match(
        list.body.results[0].download_url,
        new RegExp(`/v1/site_reports/${String(report.uuid)}/download$`),
      );

      const pdf = await fetch(`${api.url}/v1/site_reports/${String(report.uuid)}/download`, {
        headers: {
          authorization: `Basic ${Buffer.from(`${owner.userId}:${owner.password}`).toString('base64')}`,
        },
      });
      assert.equal(pdf.status, 200);
      assert.equal(pdf.headers.get('content-type'), 'application/pdf');
      assert.equal(
        Buffer.from(await pdf.arrayBuffer())
          .subarray(0, 5)
          .toString(),
        '%PDF-',
      );
      const html = await api.request('GET', `/v1/site_reports/${String(report.uuid)}/download?format=html`, {
        auth: owner,
      });
      assert.equal(html.status, 200);
      assert.match(html.headers.get('content-type') ?? '', /text\/html/);
      assert.match(html.headers.get('content-security-policy') ?? '', /sandbox/);
      assert.match(html.text, /Monthly site report/);
      assert.deepEqual(
        errorsOf(
          await api.request('GET', `/v1/site_reports/${String(report.uuid)}/download?format=doc`, {
            auth: owner,
          }),
        ),
        ['format:invalid_value:invalid'],
      );
    });

    it('pages the list with limit and offset', async () => {
      const id = (await create(validBody)).body.schedule.schedule_id as string;
      for (let i = 0; i < 3; i += 1) {
        clock.advance(1_000);
        assert.equal(
          (await api.request('POST', `${SCHEDULES}/${id}:run?send=false`, { auth: owner })).status,
          201,
        );
      }
      const first = await api.request('GET', `/v1/site_reports?site_id=${site}&limit=2`, { auth: owner });
      assert.equal(first.body.count, 3);
      assert.equal(first.body.results.length, 2);
      assert.equal(first.body.previous, null);
      assert.match(first.body.next, /offset=2/);
      const second = await api.request('GET', `/v1/site_reports?site_id=${site}&limit=2&offset=2`, {
        auth: owner,
      });
      assert.equal(second.body.results.length, 1);
      assert.equal(second.body.next, null);
      assert.match(second.body.previous, /offset=0/);
      assert.deepEqual(
        errorsOf(await api.request('GET', `/v1/site_reports?site_id=${site}&limit=101`, { auth: owner })),
        ['limit:invalid_value:out_of_range'],
      );
    });

    it('says plainly that a report was not e-mailed when no relay is configured', async () => {
      const id = (await create(validBody)).body.schedule.schedule_id as string;
      const run = await api.request('POST', `${SCHEDULES}/${id}:run`, { auth: owner });
      assert.equal(run.status, 201, run.text);
      assert.match(run.body.message, /ATOLL_SMTP_URL/);
      assert.equal(run.body.report.delivery.status, 'FAILED');
      assert.equal(run.body.report.recipients[0].status, 'FAILED');
    });
  });
});

describe('site reports API rate limit', () => {
  let api: TestApi;
  before(async () => {
    api = await TestApi.start({ buildEnv: { ATOLL_REPORT_RATE_PER_MINUTE: '3' } });
  });
  after(async () => {
    await api.close();
  });

  it('answers 429 with Retry-After once an account used up its minute', async () => {
    await api.reset();
    const owner = await api.createTenant('acme');
    const uid = (await api.request('GET', '/v1/accounts/acme', { auth: owner })).body.uid as string;
    const path = `/v1/site_reports/templates?account_id=${uid}`;
    for (let i = 0; i < 3; i += 1)
      assert.equal((await api.request('GET', path, { auth: owner })).status, 200);
    const limited = await api.request('GET', path, { auth: owner });
    assert.equal(limited.status, 429);
    assert.match(limited.body.message, /requests to the site reports API for this account/);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
  });
});
