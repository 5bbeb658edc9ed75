import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BuildHarness } from '../helpers/build-harness.js';

describe('usage counters of an environment', () => {
  let h: BuildHarness;

  before(async () => {
    h = await BuildHarness.start();
    await h.api.startHosting();
    const { operation } = await h.upload('01-static-site');
    await h.waitDone(operation);
  });
  after(async () => {
    await h.stop();
  });

  it('counts what the edge answered, per minute, and reads it back per interval', async () => {
    for (let i = 0; i < 5; i += 1) assert.equal((await h.edge('/')).status, 200);
    for (let i = 0; i < 3; i += 1) assert.equal((await h.edge('/missing?x=1')).status, 404);
    await h.api.services.usageMeter.flush();
    const answer = await h.api.request('GET', `${h.envPath}/usage?interval=60s`, { auth: h.owner });
    assert.equal(answer.status, 200, answer.text);
    const { total, intervals } = answer.body;
    assert.equal(intervals.length, 24 * 60);
    assert.equal(total.requests, 8);
    assert.equal(total.statusClasses['2xx'], 5);
    assert.equal(total.statusClasses['4xx'], 3);
    assert.ok(total.bytesOut > 0);
    assert.ok(total.latencyP95Ms >= total.latencyP50Ms && total.latencyP50Ms > 0);
    assert.deepEqual(total.topPaths, [
      { path: '/', requests: 5 },
      { path: '/missing', requests: 3 },
    ]);
    const busy = intervals.filter((i: { requests: number }) => i.requests > 0);
    assert.ok(busy.length >= 1 && busy.length <= 2);
  });

  it('refuses an interval that is not whole minutes, or too many intervals, naming the field', async () => {
    const odd = await h.api.request('GET', `${h.envPath}/usage?interval=90s`, { auth: h.owner });
    assert.equal(odd.status, 400);
    assert.match(odd.body.message, /interval/);
    const many = await h.api.request(
      'GET',
      `${h.envPath}/usage?interval=60s&startTime=2026-01-01T00:00:00Z&endTime=2026-02-01T00:00:00Z`,
      { auth: h.owner },
    );
    assert.equal(many.status, 400);
    assert.match(many.body.message, /at most 1500/);
    const backwards = await h.api.request(
      'GET',
      `${h.envPath}/usage?startTime=2026-02-01T00:00:00Z&endTime=2026-01-01T00:00:00Z`,
      { auth: h.owner },
    );
    assert.equal(backwards.status, 400);
  });

  it('does not show one tenant the usage of another (regression: cross-tenant usage)', async () => {
    const stranger = await h.api.createTenant('other');
    const answer = await h.api.request('GET', `${h.envPath}/usage`, { auth: stranger });
    assert.equal(answer.status, 403);
  });
});
