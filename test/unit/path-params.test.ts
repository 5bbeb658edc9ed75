import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { PathId } from '../../src/contract/path-schemas.js';
import { pathParamViolations, unreadableUrlError } from '../../src/http/path-params.js';
import { textViolations } from '../../src/http/text-violations.js';

describe('the path rule (issue 20)', () => {
  it('is the same in the hook that enforces it and in the PathId schema that documents it', () => {
    const schema = new Ajv().compile(PathId('an id'));
    const values = [
      '',
      'a',
      'a'.repeat(255),
      'a'.repeat(256),
      'a/b',
      'a:b',
      'bücher.example',
      'owner+tag@example.com',
      'a b',
      '\u00a0',
      '\ue000',
      '😀',
      ...Array.from({ length: 0x20 }, (_v, code) => `a${String.fromCharCode(code)}`),
      ...Array.from({ length: 0x21 }, (_v, i) => `a${String.fromCharCode(0x7f + i)}`),
    ];
    for (const value of values)
      assert.equal(pathParamViolations({ id: value }).length === 0, schema(value), JSON.stringify(value));
  });

  it('names each parameter that breaks the rule, with the rule', () => {
    assert.deepEqual(
      pathParamViolations({
        account: 'acme',
        app: 'a\u0000',
        build: 'x'.repeat(300),
        domain: 'a%2Fb',
        email: 'a/b',
      }).map((v) => [v.field, v.code]),
      [
        ['app', 'invalid_characters'],
        ['build', 'too_long'],
        ['email', 'invalid_characters'],
      ],
    );
  });

  it('names the parameter of a URL the router cannot decode through the route it was meant for', () => {
    const routes: Record<string, Record<string, string>> = {};
    const find = (_method: string, url: string) => {
      const match = /^\/v1\/accounts\/([^/]+)\/apps\/([^/:]+)(:clearCache)?$/.exec(url);
      routes[url] = {};
      return match ? { account: match[1], app: match[2] } : undefined;
    };
    const error = unreadableUrlError(find, 'GET', '/v1/accounts/acme/apps/w%FFeb%C3%BC?pageSize=%FF');
    assert.equal(error.reason, 'MALFORMED_REQUEST');
    assert.deepEqual(
      error.fieldViolations.map((v) => v.field),
      ['app'],
    );
    // The valid escape (ü) is kept; only the unreadable run is marked.
    assert.ok(Object.keys(routes).includes('/v1/accounts/acme/apps/w\ue000eb%C3%BC'));
    assert.deepEqual(
      unreadableUrlError(find, 'GET', '/v1/acc%zzounts').fieldViolations.map((v) => v.field),
      ['path'],
    );
  });
});

describe('strings no body may hold (issue 20)', () => {
  it('names every string with U+0000 or a lone surrogate by its field, keys included', () => {
    const violations = textViolations({
      email: 'a\u0000b',
      recipients: [{ name: 'ok' }, { name: '\udc00x' }],
      fine: ['😀', 'a\u0001b'],
      'key\u0000': 1,
    });
    assert.deepEqual(
      violations.map((v) => v.field),
      ['email', 'recipients[1].name', 'body'],
    );
    assert.deepEqual(textViolations('\ud800'), [
      {
        field: 'body',
        description: 'must be Unicode text: it holds a lone surrogate (\\ud800 to \\udfff without its pair)',
        code: 'invalid_characters',
      },
    ]);
  });

  it('walks a body nested 500,000 deep without recursion', () => {
    let deep: unknown = 'a\u0000';
    for (let i = 0; i < 500_000; i++) deep = [deep];
    const [violation] = textViolations(deep);
    assert.match(violation?.field ?? '', /^(\[0\]){500000}$/);
  });
});
