import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deriveState, environmentDomains, planReplace, type MappingFacts } from './domain-mapping.js';
import { normalizeDomain } from './domain-names.js';

const rules = {
  maxPerEnvironment: 3,
  baseDomain: 'apps.example.net',
  ownHostname: 'h1234.apps.example.net',
  mappingNamePrefix: 'accounts/a/apps/w/environments/1234/domainMappings/',
};

function violations(requested: Parameters<typeof planReplace>[0]): string[] {
  const outcome = planReplace(requested, [], rules);
  return 'violations' in outcome ? outcome.violations.map((v) => `${v.field}: ${v.description}`) : [];
}

describe('domain names', () => {
  it('lower-cases, drops a trailing dot and converts IDNs to punycode', () => {
    assert.deepEqual(normalizeDomain('WWW.Example.COM.'), { domain: 'www.example.com' });
    assert.deepEqual(normalizeDomain('Bücher.example'), { domain: 'xn--bcher-kva.example' });
  });

  it('refuses what is not an RFC 1123 host name, saying which rule', () => {
    for (const [input, rule] of [
      ['example', /at least two labels/],
      ['-a.example.com', /label "-a"/],
      ['a_b.example.com', /label "a_b"/],
      ['a..example.com', /label ""/],
      [`${'a'.repeat(64)}.com`, /1 to 63/],
      [`${'abcdefghi.'.repeat(26)}com`, /at most 253/],
      ['192.0.2.1', /not an IP address/],
      ['*.example.com', /wildcard/],
      ['https://example.com', /without scheme/],
      [' example.com', /without spaces/],
    ] as const) {
      const outcome = normalizeDomain(input);
      assert.ok('rule' in outcome, input);
      assert.match(outcome.rule, rule, input);
    }
  });
});

describe(':replace rules', () => {
  it('accepts a primary with a redirect to it, and says what changes against the current set', () => {
    const outcome = planReplace(
      [
        { domain: 'www.example.com', primary: true },
        { domain: 'Example.com', destinationDomainMapping: `${rules.mappingNamePrefix}www.example.com` },
        { domain: 'kept.example.com' },
      ],
      [
        { domain: 'kept.example.com', primary: false, destination: null },
        { domain: 'www.example.com', primary: false, destination: null },
        { domain: 'old.example.com', primary: true, destination: null },
      ],
      rules,
    );
    assert.ok('plan' in outcome);
    assert.deepEqual(
      outcome.plan.create.map((m) => [m.domain, m.destination]),
      [['example.com', 'www.example.com']],
    );
    assert.deepEqual(
      outcome.plan.update.map((m) => m.domain),
      ['www.example.com'],
    );
    assert.deepEqual(
      outcome.plan.keep.map((m) => m.domain),
      ['kept.example.com'],
    );
    assert.deepEqual(outcome.plan.delete, ['old.example.com']);
  });

  it('refuses duplicates after normalisation and a second primary', () => {
    assert.deepEqual(
      violations([
        { domain: 'a.example.com', primary: true },
        { domain: 'A.example.com.', primary: true },
      ]),
      [
        'domainMappings[1].domain: repeats domainMappings[0] (a.example.com)',
        'domainMappings[1].primary: only one mapping may be primary; domainMappings[0] is already',
      ],
    );
  });

  it('refuses a redirect to a domain outside the set, to itself, a chain and a loop', () => {
    assert.match(
      violations([{ domain: 'a.example.com', destinationDomainMapping: 'b.example.com' }])[0] ?? '',
      /not in this request/,
    );
    assert.match(
      violations([{ domain: 'a.example.com', destinationDomainMapping: 'a.example.com' }])[0] ?? '',
      /to itself/,
    );
    const chain = violations([
      { domain: 'a.example.com', destinationDomainMapping: 'b.example.com' },
      { domain: 'b.example.com', destinationDomainMapping: 'c.example.com' },
      { domain: 'c.example.com' },
    ]);
    assert.deepEqual(chain, [
      'domainMappings[0].destinationDomainMapping: points to b.example.com, which redirects to c.example.com itself; redirects may not form chains or loops',
    ]);
    const loop = violations([
      { domain: 'a.example.com', destinationDomainMapping: 'b.example.com' },
      { domain: 'b.example.com', destinationDomainMapping: 'a.example.com' },
    ]);
    assert.equal(loop.length, 2);
    assert.ok(loop.every((v) => /chains or loops/.test(v)));
  });

  it('refuses a redirecting primary, too many mappings, and the base domain except the own name', () => {
    assert.match(
      violations([
        { domain: 'a.example.com', primary: true, destinationDomainMapping: 'b.example.com' },
        { domain: 'b.example.com' },
      ])[0] ?? '',
      /must be empty on the primary/,
    );
    assert.match(
      violations([
        { domain: 'a.x.com' },
        { domain: 'b.x.com' },
        { domain: 'c.x.com' },
        { domain: 'd.x.com' },
      ])[0] ?? '',
      /at most 3 mappings/,
    );
    assert.match(violations([{ domain: 'shop.apps.example.net' }])[0] ?? '', /under the platform's domain/);
    assert.match(violations([{ domain: 'apps.example.net' }])[0] ?? '', /under the platform's domain/);
    assert.deepEqual(violations([{ domain: 'H1234.apps.example.net' }]), []);
  });
});

describe('domain mapping states', () => {
  const facts: MappingFacts = {
    domain: 'www.example.com',
    deleting: false,
    claimedElsewhere: false,
    verified: false,
    txtName: '_atoll-challenge.www.example.com',
    txtValue: 'v4lue',
    txtCheckTime: null,
    txtFound: '',
    dnsCheck: 'PENDING',
    dnsCheckDetail: '',
  };

  it('is CREATING before any check, then PENDING_VERIFICATION with what to publish and what was found', () => {
    assert.equal(deriveState(facts).state, 'CREATING');
    const pending = deriveState({
      ...facts,
      txtCheckTime: new Date(),
      txtFound: 'TXT "other"',
      dnsCheck: 'PASSED',
    });
    assert.equal(pending.state, 'PENDING_VERIFICATION');
    assert.match(pending.reason, /TXT record named _atoll-challenge\.www\.example\.com with the value v4lue/);
    assert.match(pending.reason, /found TXT "other"/);
  });

  it('needs the DNS check too, and is ACTIVE with both; FAILED when another account holds it', () => {
    const verified = { ...facts, verified: true, txtCheckTime: new Date() };
    const dns = deriveState({
      ...verified,
      dnsCheck: 'FAILED',
      dnsCheckDetail: 'expected a CNAME to edge.test, found A 192.0.2.1',
    });
    assert.equal(dns.state, 'PENDING_VERIFICATION');
    assert.match(dns.reason, /does not point at the edge yet: expected a CNAME/);
    assert.deepEqual(deriveState({ ...verified, dnsCheck: 'PASSED' }), { state: 'ACTIVE', reason: '' });
    assert.deepEqual(deriveState({ ...verified, dnsCheck: 'SKIPPED' }), { state: 'ACTIVE', reason: '' });
    assert.equal(deriveState({ ...verified, dnsCheck: 'PASSED', claimedElsewhere: true }).state, 'FAILED');
    assert.equal(deriveState({ ...verified, deleting: true }).state, 'DELETING');
  });

  it('gives the environment its domains primary first, and a url domain only once the primary is ACTIVE', () => {
    const at = (s: number) => new Date(1_700_000_000_000 + s * 1000);
    const shown = environmentDomains([
      {
        domain: 'b.example.com',
        primary: false,
        state: 'ACTIVE',
        certificateState: 'ISSUED',
        createTime: at(1),
      },
      {
        domain: 'c.example.com',
        primary: true,
        state: 'PENDING_VERIFICATION',
        certificateState: 'PENDING',
        createTime: at(2),
      },
      {
        domain: 'a.example.com',
        primary: false,
        state: 'DELETING',
        certificateState: 'PENDING',
        createTime: at(0),
      },
    ]);
    assert.deepEqual(shown, { domains: ['c.example.com', 'b.example.com'], urlDomain: null });
    const active = environmentDomains([
      {
        domain: 'c.example.com',
        primary: true,
        state: 'ACTIVE',
        certificateState: 'ISSUED',
        createTime: at(2),
      },
    ]);
    assert.deepEqual(active.urlDomain, { domain: 'c.example.com', https: true });
  });
});
