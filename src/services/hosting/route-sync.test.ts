import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { originAddressOf } from './route-sync.js';

describe('originAddressOf', () => {
  it('reads host:port and [v6]:port', () => {
    assert.deepEqual(originAddressOf('10.0.0.5:8090'), { host: '10.0.0.5', port: 8090 });
    assert.deepEqual(originAddressOf('runtime-1.internal:8090'), { host: 'runtime-1.internal', port: 8090 });
    assert.deepEqual(originAddressOf('[fd00::5]:8090'), { host: 'fd00::5', port: 8090 });
  });

  it('refuses what is not one address and port', () => {
    for (const bad of ['', '10.0.0.5', '10.0.0.5:0', '10.0.0.5:70000', 'fd00::5:8090', 'http://x:1', 'a b:1'])
      assert.equal(originAddressOf(bad), undefined, bad);
  });
});
