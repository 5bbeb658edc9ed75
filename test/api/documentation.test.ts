import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestApi } from '../helpers/test-api.js';

describe('the documentation served at /docs', () => {
  let api: TestApi;

  before(async () => {
    api = await TestApi.start();
  });
  after(async () => {
    await api.close();
  });

  const get = (path: string) => fetch(`${api.url}${path}`);

  it('lists the pages and serves each as HTML with GitHub heading ids', async () => {
    const index = await (await get('/docs')).text();
    assert.match(index, /href="\/docs\/api"/);
    assert.match(index, /href="\/docs\/portal"/);
    const page = await get('/docs/api');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await page.text(), /id="site-reports-errors"/);
  });

  it('serves the portal page with its screenshots', async () => {
    const html = await (await get('/docs/portal')).text();
    const src = /<img src="(portal\/[a-z-]+\.png)"/.exec(html)?.[1];
    assert.ok(src, 'docs/portal.md shows no screenshot');
    const picture = await get(`/docs/${src}`);
    assert.equal(picture.status, 200);
    assert.equal(picture.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await picture.arrayBuffer()).subarray(1, 4), Buffer.from('PNG'));
  });

  it('answers 404 for a page or picture that is not there, and for paths out of the folder', async () => {
    for (const path of [
      '/docs/nothing',
      '/docs/portal/nothing.png',
      '/docs/portal/sign-in.txt',
      '/docs/nothing/sign-in.png',
    ]) {
      const answer = await get(path);
      assert.equal(answer.status, 404, path);
    }
    // An encoded slash breaks the rule of every path parameter: refused before the route reads it.
    const escape = await get('/docs/portal/..%2Fapi.md');
    assert.equal(escape.status, 400);
    const body = (await escape.json()) as { details: { fieldViolations?: { field: string }[] }[] };
    assert.equal(body.details[1]?.fieldViolations?.[0]?.field, 'picture');
  });
});
