import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { REGIONS, checkRegion, regionName, toRegionId } from './region.js';

describe('regions', () => {
  it('has the four regions of the API', () => {
    assert.deepEqual(
      REGIONS.map((r) => r.id),
      ['US-C', 'AUS-SE', 'UK', 'EU-W'],
    );
  });

  it('names a region as regions/<id>', () => {
    assert.equal(regionName('UK'), 'regions/UK');
    assert.equal(regionName('AUS-SE'), 'regions/AUS-SE');
  });

  it('reads both the resource name and the bare id', () => {
    assert.equal(toRegionId('regions/US-C'), 'US-C');
    assert.equal(toRegionId('EU-W'), 'EU-W');
    assert.equal(toRegionId('regions/UK'), 'UK');
  });

  it('refuses unknown ids, other casing and malformed names', () => {
    for (const value of [
      '',
      'regions/',
      'uk',
      'regions/uk',
      'regions/MARS',
      'region/UK',
      'regions/regions/UK',
      ' UK',
    ]) {
      assert.equal(toRegionId(value), undefined, value);
    }
  });

  it('checkRegion lists the accepted values', () => {
    assert.deepEqual(checkRegion('region', 'regions/UK'), []);
    assert.deepEqual(checkRegion('region', 'UK'), []);
    assert.deepEqual(checkRegion('region', 'regions/MARS'), [
      {
        field: 'region',
        description: 'must be one of regions/US-C, regions/AUS-SE, regions/UK, regions/EU-W',
      },
    ]);
  });
});
