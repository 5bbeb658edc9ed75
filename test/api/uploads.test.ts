import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { after, before, beforeEach, describe, it } from 'node:test';
import yazl from 'yazl';
import { loadConfig } from '../../src/config/load-config.js';
import { TestApi, type Credentials } from '../helpers/test-api.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/zips/${name}`, import.meta.url));

describe('direct upload and builds', () => {
  let api: TestApi;
  let owner: Credentials;
  let envId: string;
  let envPath: string;

  before(async () => {
    api = await TestApi.start({
      uploadLimits: { maxArchiveBytes: 64 * 1024, maxEntries: 30, maxCompressionRatio: 200 },
    });
  });
  after(async () => {
    await api.close();
  });
  beforeEach(async () => {
    await api.reset();
    owner = await api.createUploadApp();
    const created = await api.createUploadEnvironment(owner);
    envId = /environments\/([^/]+)\//.exec(created.body.name)?.[1] ?? '';
    envPath = `/v1/accounts/acme/apps/web/environments/${envId}`;
  });

  async function upload(bytes: Buffer, options: { part?: string; auth?: Credentials; env?: string } = {}) {
    const form = new FormData();
    form.append('note', 'a form field is ignored');
    form.append(options.part ?? 'repository', new Blob([bytes], { type: 'application/zip' }), 'code.zip');
    const response = await fetch(
      `${api.url}/fu/v1/accounts/acme/apps/web/environments/${options.env ?? envId}:upload`,
      {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${(options.auth ?? owner).userId}:${(options.auth ?? owner).password}`).toString('base64')}`,
        },
        body: form,
      },
    );
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
  }

  function leftovers(): string[] {
    const tmp = join(api.dataDir, 'tmp');
    return existsSync(tmp) ? readdirSync(tmp) : [];
  }

  async function buildCount(): Promise<number> {
    return (
      await api.testStore.db
        .selectFrom('builds' as never)
        .selectAll()
        .execute()
    ).length;
  }

  it('stores the archive, queues a build and answers its operation named by the build id', async () => {
    const bytes = fixture('static-site.zip');
    const answer = await upload(bytes);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const buildId = /operations\/([^/]+)$/.exec(answer.body.name)?.[1] ?? '';
    assert.match(buildId, /^[0-9a-f-]{36}$/);
    assert.deepEqual(answer.body, {
      name: `accounts/acme/apps/web/environments/${envId}/operations/${buildId}`,
      metadata: {
        '@type': 'type.googleapis.com/wpengine.js.apps.v1.UpdateEnvironmentMetadata',
        build: `accounts/acme/apps/web/environments/${envId}/builds/${buildId}`,
        deployment: '',
      },
      done: false,
    });
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const build = await api.request('GET', `${envPath}/builds/${buildId}`, { auth: owner });
    assert.equal(build.status, 200);
    assert.equal(build.body.state, 'QUEUED');
    assert.equal(build.body.trigger, 'UPLOAD');
    assert.equal(build.body.branch, 'uploadable');
    assert.equal(build.body.sourceDigest, `sha256:${sha256}`);
    assert.equal(build.body.sourceBytes, bytes.length);
    assert.equal(build.body.commitSha, '');
    assert.equal(build.body.live, false);
    assert.equal(build.body.finishTime, undefined);
    assert.deepEqual(
      readFileSync(join(api.dataDir, 'blobs', 'sources', `${sha256}.zip`)),
      bytes,
      'the source is kept',
    );
    const operation = await api.request('GET', `/v1/${answer.body.name}`, { auth: owner });
    assert.equal(operation.body.done, false);
    assert.deepEqual(leftovers(), []);
  });

  it('supersedes a build that is still queued when a newer upload arrives', async () => {
    const first = await upload(fixture('static-site.zip'));
    const second = await upload(fixture('static-site.zip'));
    const firstBuild = /operations\/(.+)$/.exec(first.body.name)?.[1];
    const secondBuild = /operations\/(.+)$/.exec(second.body.name)?.[1];
    const old = await api.request('GET', `${envPath}/builds/${firstBuild}`, { auth: owner });
    assert.equal(old.body.state, 'CANCELLED');
    assert.match(
      old.body.failureReason.message,
      new RegExp(`superseded by a newer upload \\(build ${secondBuild}\\)`),
    );
    assert.ok(old.body.finishTime);
    const oldOperation = await api.request('GET', `/v1/${first.body.name}`, { auth: owner });
    assert.equal(oldOperation.body.done, true);
    assert.equal(oldOperation.body.error.code, 1);
    assert.equal(
      (await api.request('GET', `${envPath}/builds/${secondBuild}`, { auth: owner })).body.state,
      'QUEUED',
    );
  });

  const refusals: [string, RegExp][] = [
    ['not-a-zip.zip', /is not a \.zip archive/],
    ['truncated.zip', /is not a \.zip archive|truncated or corrupt/],
    ['absolute-path.zip', /absolute path/],
    ['dot-dot-escape.zip', /escapes the archive with "\.\."/],
    ['backslash-escape.zip', /escapes the archive with "\.\."|backslashes/],
    ['symlink.zip', /is a symbolic link/],
    ['device.zip', /is a character device/],
    ['fifo.zip', /is a FIFO/],
    ['encrypted.zip', /is encrypted/],
    ['zip-bomb.zip', /expands \d+ times, more than the limit of 200/],
    ['many-entries.zip', /has 40 entries, more than the limit of 30/],
    ['empty.zip', /holds no files/],
  ];
  for (const [name, rule] of refusals) {
    it(`refuses ${name} with 400 naming the rule, leaving nothing behind`, async () => {
      const answer = await upload(fixture(name));
      assert.equal(answer.status, 400, JSON.stringify(answer.body));
      assert.equal(answer.body.code, 3);
      assert.equal(answer.body.details[0].reason, 'INVALID_ARCHIVE');
      assert.match(answer.body.message, /^repository: the archive /);
      assert.match(answer.body.message, rule);
      assert.equal(await buildCount(), 0, 'no build record');
      assert.deepEqual(leftovers(), [], 'no temporary file');
      const sha256 = createHash('sha256').update(fixture(name)).digest('hex');
      assert.ok(
        !existsSync(join(api.dataDir, 'blobs', 'sources', `${sha256}.zip`)),
        'the refused archive is not kept',
      );
    });
  }

  it('refuses an archive over the size limit with 413 and keeps nothing', async () => {
    const answer = await upload(Buffer.alloc(80 * 1024, 1));
    assert.equal(answer.status, 413);
    assert.equal(answer.body.details[0].reason, 'ARCHIVE_TOO_LARGE');
    assert.match(answer.body.message, /larger than the limit of 65536 bytes/);
    assert.equal(await buildCount(), 0);
    assert.deepEqual(leftovers(), []);
  });

  it('refuses a wrong part name, a missing file part and a body that is not multipart', async () => {
    const wrong = await upload(fixture('static-site.zip'), { part: 'file' });
    assert.equal(wrong.status, 400);
    assert.match(wrong.body.message, /^repository: the file part must be named "repository" \(got "file"\)/);
    const form = new FormData();
    form.append('repository', 'not a file');
    const noFile = await fetch(`${api.url}/fu/v1/accounts/acme/apps/web/environments/${envId}:upload`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${owner.userId}:${owner.password}`).toString('base64')}`,
      },
      body: form,
    });
    assert.equal(noFile.status, 400);
    assert.match(((await noFile.json()) as { message: string }).message, /no file part named "repository"/);
    const json = await api.request('POST', `/fu/v1/accounts/acme/apps/web/environments/${envId}:upload`, {
      auth: owner,
      body: {},
    });
    assert.equal(json.status, 415);
    assert.equal(await buildCount(), 0);
    assert.deepEqual(leftovers(), []);
  });

  it('answers 404 for an unknown environment and 403 for viewers and strangers, reading nothing', async () => {
    assert.equal(
      (await upload(fixture('static-site.zip'), { env: '00000000-0000-4000-8000-000000000000' })).status,
      404,
    );
    const viewer = await api.addMember('acme', 'viewer@acme.test', 'viewer');
    assert.equal((await upload(fixture('static-site.zip'), { auth: viewer })).status, 403);
    const stranger = await api.createTenant('other');
    assert.equal((await upload(fixture('static-site.zip'), { auth: stranger })).status, 403);
    assert.equal(await buildCount(), 0);
  });

  it('lists builds newest first by default, pages them, orders and filters by time', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++)
      ids.push(/operations\/(.+)$/.exec((await upload(fixture('static-site.zip'))).body.name)?.[1] ?? '');
    const seen: string[] = [];
    let token = '';
    do {
      const page = await api.request(
        'GET',
        `${envPath}/builds?pageSize=3${token ? `&pageToken=${token}` : ''}`,
        { auth: owner },
      );
      assert.equal(page.status, 200);
      seen.push(...page.body.builds.map((b: any) => b.name.split('/').pop()));
      token = page.body.nextPageToken;
    } while (token);
    assert.deepEqual(seen, [...ids].reverse());
    const oldest = await api.request('GET', `${envPath}/builds?orderBy=createTime&pageSize=1`, {
      auth: owner,
    });
    assert.equal(oldest.body.builds[0].name.split('/').pop(), ids[0]);
    const mixed = await api.request(
      'GET',
      `${envPath}/builds?orderBy=createTime&pageToken=${(await api.request('GET', `${envPath}/builds?pageSize=1`, { auth: owner })).body.nextPageToken}`,
      { auth: owner },
    );
    assert.equal(mixed.status, 400, 'a token of one order is refused by the other');
    const future = await api.request('GET', `${envPath}/builds?startTime=2999-01-01T00:00:00Z`, {
      auth: owner,
    });
    assert.deepEqual(future.body.builds, []);
    const bad = await api.request('GET', `${envPath}/builds?orderBy=name`, { auth: owner });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /^orderBy:/);
    const badTime = await api.request('GET', `${envPath}/builds?endTime=yesterday`, { auth: owner });
    assert.match(badTime.body.message, /^endTime: must be an RFC 3339 date-time/);
  });

  it('rebuilds the most recent source, clean or not, and says when there is nothing to build', async () => {
    const nothing = await api.request('POST', `${envPath}:rebuild`, { auth: owner });
    assert.equal(nothing.status, 400);
    assert.equal(nothing.body.details[0].reason, 'NOTHING_TO_BUILD');
    const uploaded = await upload(fixture('static-site.zip'));
    const first = /operations\/(.+)$/.exec(uploaded.body.name)?.[1];
    const rebuild = await api.request('POST', `${envPath}:rebuild`, { auth: owner, body: { clean: true } });
    assert.equal(rebuild.status, 200, rebuild.text);
    const buildId = /operations\/(.+)$/.exec(rebuild.body.name)?.[1];
    assert.notEqual(buildId, first);
    assert.equal(
      rebuild.body.metadata.build,
      `accounts/acme/apps/web/environments/${envId}/builds/${buildId}`,
    );
    const build = (await api.request('GET', `${envPath}/builds/${buildId}`, { auth: owner })).body;
    assert.equal(build.trigger, 'CLEAN_REBUILD');
    assert.equal(
      build.sourceDigest,
      `sha256:${createHash('sha256').update(fixture('static-site.zip')).digest('hex')}`,
    );
    const superseded = (await api.request('GET', `${envPath}/builds/${first}`, { auth: owner })).body;
    assert.equal(superseded.state, 'CANCELLED', 'the queued upload was superseded');
    const plain = await api.request('POST', `${envPath}:rebuild`, { auth: owner });
    assert.equal(
      (
        await api.request('GET', `${envPath}/builds/${/operations\/(.+)$/.exec(plain.body.name)?.[1]}`, {
          auth: owner,
        })
      ).body.trigger,
      'REBUILD',
    );
    const unknown = await api.request('POST', `${envPath}:rebuild`, {
      auth: owner,
      body: { clean: true, force: 1 },
    });
    assert.equal(unknown.status, 400);
    const viewer = await api.addMember('acme', 'viewer@acme.test', 'viewer');
    assert.equal((await api.request('POST', `${envPath}:rebuild`, { auth: viewer })).status, 403);
  });

  it('cancels a queued build, and refuses to cancel a finished one naming its state', async () => {
    const answer = await upload(fixture('static-site.zip'));
    const buildId = /operations\/(.+)$/.exec(answer.body.name)?.[1];
    const cancelled = await api.request('POST', `${envPath}/builds/${buildId}:cancel`, { auth: owner });
    assert.equal(cancelled.status, 200);
    assert.equal(cancelled.body.state, 'CANCELLED');
    assert.equal(cancelled.body.failureReason.message, 'cancelled by request');
    const operation = await api.request('GET', `/v1/${answer.body.name}`, { auth: owner });
    assert.equal(operation.body.done, true);
    assert.deepEqual(operation.body.error, { code: 1, message: 'cancelled by request', details: [] });
    const again = await api.request('POST', `${envPath}/builds/${buildId}:cancel`, { auth: owner });
    assert.equal(again.status, 400);
    assert.equal(again.body.code, 9);
    assert.match(again.body.message, /has finished as CANCELLED and cannot be cancelled/);
    assert.equal(
      (await api.request('POST', `${envPath}/builds/${buildId}:bogus`, { auth: owner })).status,
      404,
    );
    assert.equal(
      (await api.request('GET', `${envPath}/builds/00000000-0000-4000-8000-000000000000`, { auth: owner }))
        .status,
      404,
    );
    const viewer = await api.addMember('acme', 'viewer@acme.test', 'viewer');
    assert.equal(
      (await api.request('POST', `${envPath}/builds/${buildId}:cancel`, { auth: viewer })).status,
      403,
    );
  });
});

/** A real .zip of the given entries, made with yazl (deflated). */
function zipOf(entries: readonly (readonly [string, Buffer])[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, bytes] of entries) zip.addBuffer(bytes, name);
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.outputStream.on('end', () => {
      resolve(Buffer.concat(chunks));
    });
    zip.outputStream.on('error', reject);
  });
}

/** Crafted archives against the limits `atoll serve` has by default. */
describe('uploads refused for what they would do to the disk, with the default limits', () => {
  let api: TestApi;
  let owner: Credentials;
  let envId: string;

  before(async () => {
    api = await TestApi.start({ uploadLimits: loadConfig({}, tmpdir()).uploadLimits });
    owner = await api.createUploadApp();
    const created = await api.createUploadEnvironment(owner);
    envId = /environments\/([^/]+)\//.exec(created.body.name)?.[1] ?? '';
  });
  after(async () => {
    await api.close();
  });

  async function upload(bytes: Buffer) {
    const form = new FormData();
    form.append('repository', new Blob([bytes], { type: 'application/zip' }), 'code.zip');
    const response = await fetch(`${api.url}/fu/v1/accounts/acme/apps/web/environments/${envId}:upload`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${owner.userId}:${owner.password}`).toString('base64')}`,
      },
      body: form,
    });
    return { status: response.status, body: (await response.json()) as any };
  }

  async function assertRefused(bytes: Buffer, rule: RegExp) {
    const answer = await upload(bytes);
    assert.equal(answer.status, 400, JSON.stringify(answer.body));
    assert.equal(answer.body.details[0].reason, 'INVALID_ARCHIVE');
    const badRequest = answer.body.details.find(
      (d: any) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest',
    );
    assert.equal(badRequest?.fieldViolations?.[0]?.field, 'repository', 'the field is named');
    assert.match(badRequest.fieldViolations[0].description, rule);
    assert.match(answer.body.message, /^repository: the archive /);
    assert.match(answer.body.message, rule);
    assert.ok(answer.body.message.length < 600, 'the entry name is cut in the message');
    const builds = await api.testStore.db
      .selectFrom('builds' as never)
      .selectAll()
      .execute();
    assert.equal(builds.length, 0, 'no build record');
  }

  it("refuses an entry path longer than the file system takes (prevents one tenant stopping every tenant's builds)", async () => {
    const bytes = await zipOf([
      ['site/index.html', Buffer.from('<h1>hello</h1>')],
      [`${'d/'.repeat(2000)}f.txt`, Buffer.from('deep')],
    ]);
    assert.ok(bytes.length < 16 * 1024, 'a small archive');
    await assertRefused(
      bytes,
      /entry "d\/d\/.*f\.txt" has a path of 4005 bytes, more than the limit of 1024 bytes/,
    );
  });

  it("refuses an entry name over 255 bytes and a path over 128 levels (prevents one tenant stopping every tenant's builds)", async () => {
    await assertRefused(
      await zipOf([[`site/${'n'.repeat(300)}.txt`, Buffer.from('x')]]),
      /a name of 304 bytes in its path, more than the limit of 255 bytes per name/,
    );
    await assertRefused(
      await zipOf([[`${'d/'.repeat(200)}f`, Buffer.from('x')]]),
      /is 201 levels deep, more than the limit of 128 levels/,
    );
  });

  it('refuses many small entries that expand too much together (prevents a zip bomb of many small entries)', async () => {
    const zeros = Buffer.alloc(1024 * 1024 - 1);
    const bytes = await zipOf(Array.from({ length: 600 }, (_, i) => [`bomb/${i}.bin`, zeros] as const));
    assert.ok(bytes.length < 1024 * 1024, `the archive is small (${bytes.length} bytes)`);
    await assertRefused(
      bytes,
      /expands \d+ times as a whole \(629145000 bytes from \d+\), more than the limit of 100 \(ATOLL_UPLOAD_MAX_ARCHIVE_RATIO/,
    );
  });
});
