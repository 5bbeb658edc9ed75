import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/load-config.js';

const CWD = join(tmpdir(), 'atoll-config-test');

function configError(env: Record<string, string>, ...expected: RegExp[]): void {
  assert.throws(
    () => loadConfig(env, CWD),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, String(error));
      assert.equal(error.name, 'ConfigError');
      assert.ok(error.message.startsWith('invalid configuration:\n  - '), error.message);
      for (const pattern of expected) assert.match(error.message, pattern);
      return true;
    },
  );
}

describe('loadConfig defaults', () => {
  const config = loadConfig({}, CWD);

  it('puts the data folder at ./data of the working directory', () => {
    assert.equal(config.dataDir, join(CWD, 'data'));
  });

  it('listens on 127.0.0.1:8080 and derives the public URL from it', () => {
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.apiPort, 8080);
    assert.equal(config.publicUrl, 'http://127.0.0.1:8080');
  });

  it('puts the admin socket in the data folder', () => {
    assert.equal(config.adminSocketPath, join(CWD, 'data', 'admin.sock'));
  });

  it('has the documented defaults for everything else', () => {
    assert.deepEqual(
      {
        ...config,
        trustProxy: [...config.trustProxy],
        uploadLimits: { ...config.uploadLimits },
        builds: {
          ...config.builds,
          uidRange: { ...config.builds.uidRange },
          limits: { ...config.builds.limits },
        },
      },
      {
        dataDir: join(CWD, 'data'),
        roles: ['api', 'worker', 'runtime', 'edge', 'scheduler'],
        host: '127.0.0.1',
        apiPort: 8080,
        healthPort: 8082,
        migrateAtStart: true,
        nodes: { heartbeatMs: 5_000, leaseMs: 15_000, pruneAfterMs: 3_600_000 },
        publicUrl: 'http://127.0.0.1:8080',
        databaseUrl: undefined,
        databasePoolSize: 10,
        secretKey: undefined,
        adminSocketPath: join(CWD, 'data', 'admin.sock'),
        bootstrap: undefined,
        logLevel: 'info',
        bodyLimitBytes: 1_048_576,
        rateLimitPerMinute: 1_200,
        webhookTriggersPerMinute: 10,
        events: { allowPrivate: false, retryBaseMs: 10_000, maxAgeMs: 24 * 3_600_000, timeoutMs: 10_000 },
        git: {
          allowPrivate: false,
          pollIntervalMs: 300_000,
          fetchTimeoutMs: 300_000,
          maxFetchBytes: 1_073_741_824,
          maxPreviewsPerApplication: 10,
          caFile: undefined,
        },
        authFailuresPerMinute: 20,
        authCacheTtlMs: 300_000,
        accessCacheTtlMs: 30_000,
        passwordHashLogN: 15,
        shutdownTimeoutMs: 10_000,
        trustProxy: [],
        uploadLimits: {
          maxArchiveBytes: 500 * 1024 * 1024,
          maxEntries: 50_000,
          maxUnpackedBytes: 2 * 1024 ** 3,
          maxCompressionRatio: 200,
          maxArchiveRatio: 100,
        },
        builds: {
          concurrency: 1,
          uidRange: { first: 61_000, last: 61_999 },
          wpUrlTemplate: undefined,
          heapMb: 4_096,
          maxOutputBytes: 4 * 1024 ** 3,
          unsafe: false,
          installPackages: true,
          allowNetworks: [],
          allowHosts: [
            { name: 'registry.npmjs.org', port: 443 },
            { name: 'registry.yarnpkg.com', port: 443 },
          ],
          limits: {
            wallMs: 1_200_000,
            cpuSeconds: 2_400,
            maxProcesses: 512,
            maxOpenFiles: 8_192,
            maxFileBytes: 2 * 1024 ** 3,
            maxDataBytes: 8 * 1024 ** 3,
            maxResidentBytes: 6 * 1024 ** 3,
            maxOutputBytes: 5 * 1024 * 1024,
          },
        },
        hosting: {
          edgeHost: '127.0.0.1',
          edgePort: 8081,
          baseDomain: 'localhost',
          edgePublicScheme: 'http',
          edgePublicPort: 8081,
          edgeTrustedProxies: [],
          edgeWorkers: availableParallelism(),
          upstreamTimeoutMs: 60_000,
          cacheBytesPerEnvironment: 256 * 1024 ** 2,
          cacheEntryMaxBytes: 8 * 1024 ** 2,
          appStartTimeoutMs: 60_000,
          appStopGraceMs: 10_000,
          drainTimeoutMs: 30_000,
          appLimits: {
            wallMs: Infinity,
            cpuSeconds: Infinity,
            maxProcesses: 256,
            maxOpenFiles: 8_192,
            maxFileBytes: 1024 ** 3,
            maxDataBytes: 8 * 1024 ** 3,
            maxResidentBytes: 2 * 1024 ** 3,
            maxOutputBytes: Infinity,
          },
          artifactsKept: 10,
          buildRetentionDays: 90,
          cacheRetentionDays: 30,
          runtimeLogLines: 10_000,
          purgesPerMinute: 120,
          kvMaxValueBytes: 5 * 1024 ** 2,
          kvMaxBytesPerEnvironment: 1024 ** 3,
          runtime: {
            host: '127.0.0.1',
            port: 8090,
            advertise: undefined,
            maxApps: 200,
            memoryBytes: undefined,
          },
        },
        domains: {
          dnsServers: [],
          dnsTimeoutMs: 3_000,
          edgeCnameTarget: undefined,
          edgeAddresses: [],
          perEnvironment: 50,
          recheckIntervalMs: 300_000,
          acme: undefined,
          tlsPort: undefined,
          renewDaysBefore: 30,
          certificateCheckIntervalMs: 60_000,
        },
        reports: {
          smtp: undefined,
          companyName: 'Atoll',
          brandColour: '#0f766e',
          pollMs: 1_000,
          concurrency: 4,
          retryBaseMs: 60_000,
          maxAttempts: 10,
          ratePerMinute: 120,
          healthCheckIntervalMs: 60_000,
        },
        sessions: { idleMs: 43_200_000, maxAgeMs: 604_800_000, lockoutFailures: 5, lockoutWindowMs: 900_000 },
        blobs: { kind: 'filesystem', root: join(CWD, 'data', 'blobs') },
      },
    );
  });

  it('reads the SMTP relay and refuses a malformed one, naming the variable', () => {
    const config = loadConfig(
      { ATOLL_SMTP_URL: 'smtps://user:pw@mail.example.com:465', ATOLL_MAIL_FROM: 'Reports <r@example.com>' },
      '/srv/atoll',
    );
    assert.deepEqual(config.reports.smtp, {
      url: 'smtps://user:pw@mail.example.com:465',
      from: 'Reports <r@example.com>',
      maxConnections: 4,
      timeoutMs: 20_000,
    });
    assert.throws(
      () => loadConfig({ ATOLL_SMTP_URL: 'http://mail.example.com' }, '/srv/atoll'),
      /ATOLL_SMTP_URL/,
    );
    assert.throws(() => loadConfig({ ATOLL_MAIL_FROM: 'a\nBcc: x@y.z' }, '/srv/atoll'), /ATOLL_MAIL_FROM/);
    assert.throws(
      () => loadConfig({ ATOLL_REPORT_BRAND_COLOUR: 'red' }, '/srv/atoll'),
      /ATOLL_REPORT_BRAND_COLOUR/,
    );
  });

  it('reads the custom-domain settings and refuses malformed resolvers, addresses and ACME settings by name', () => {
    const domains = loadConfig(
      {
        ATOLL_DNS_SERVERS: '127.0.0.1:5353, ::1, [::1]:53',
        ATOLL_EDGE_ADDRESSES: '203.0.113.7,2001:db8::7',
        ATOLL_EDGE_CNAME_TARGET: 'Edge.Example.NET.',
        ATOLL_ACME_DIRECTORY: 'https://127.0.0.1:14000/dir',
        ATOLL_ACME_EMAIL: 'ops@example.net',
      },
      CWD,
    ).domains;
    assert.deepEqual(domains.dnsServers, ['127.0.0.1:5353', '::1', '[::1]:53']);
    assert.equal(domains.edgeCnameTarget, 'edge.example.net');
    assert.deepEqual(domains.acme, {
      directoryUrl: 'https://127.0.0.1:14000/dir',
      email: 'ops@example.net',
      caFile: undefined,
    });
    assert.equal(domains.tlsPort, 8443);
    for (const [env, message] of [
      [
        { ATOLL_DNS_SERVERS: 'dns.example.net' },
        /ATOLL_DNS_SERVERS must be a comma-separated list of ip\[:port\]/,
      ],
      [{ ATOLL_DNS_SERVERS: '127.0.0.1:99999' }, /ATOLL_DNS_SERVERS/],
      [{ ATOLL_EDGE_ADDRESSES: 'edge.example.net' }, /ATOLL_EDGE_ADDRESSES must be IP addresses/],
      [{ ATOLL_ACME_DIRECTORY: 'https://acme.test/dir' }, /ATOLL_ACME_EMAIL must be/],
      [
        { ATOLL_ACME_DIRECTORY: 'ftp://acme.test', ATOLL_ACME_EMAIL: 'a@b.c' },
        /ATOLL_ACME_DIRECTORY must be/,
      ],
    ] as const)
      assert.throws(() => loadConfig(env, CWD), message);
  });

  it('treats empty and blank values as unset', () => {
    const blank = loadConfig(
      {
        ATOLL_DATA_DIR: '',
        ATOLL_HOST: '  ',
        ATOLL_API_PORT: '',
        ATOLL_PUBLIC_URL: ' ',
        DATABASE_URL: '',
        ATOLL_LOG_LEVEL: '',
        ATOLL_SECRET_KEY: '   ',
        ATOLL_BOOTSTRAP_ACCOUNT: '',
        ATOLL_BOOTSTRAP_PASSWORD: '',
      },
      CWD,
    );
    assert.deepEqual(blank, config);
  });

  it('treats a blank integer as unset, not as 0 (regression)', () => {
    const blank = loadConfig(
      { ATOLL_API_PORT: ' ', ATOLL_AUTH_CACHE_TTL_MS: '\t', ATOLL_SHUTDOWN_TIMEOUT_MS: ' ' },
      CWD,
    );
    assert.equal(blank.apiPort, 8080);
    assert.equal(blank.authCacheTtlMs, 300_000);
    assert.equal(blank.shutdownTimeoutMs, 10_000);
  });
});

describe('loadConfig values', () => {
  it('reads ATOLL_UNSAFE_BUILDS as 1 or 0 and refuses anything else by name', () => {
    assert.equal(loadConfig({ ATOLL_UNSAFE_BUILDS: '1' }, CWD).builds.unsafe, true);
    assert.equal(loadConfig({ ATOLL_UNSAFE_BUILDS: '0' }, CWD).builds.unsafe, false);
    assert.throws(
      () => loadConfig({ ATOLL_UNSAFE_BUILDS: 'yes' }, CWD),
      /ATOLL_UNSAFE_BUILDS must be 1 or 0/,
    );
  });

  it('installs missing OS packages unless ATOLL_INSTALL_PACKAGES is 0', () => {
    assert.equal(loadConfig({}, CWD).builds.installPackages, true);
    assert.equal(loadConfig({ ATOLL_INSTALL_PACKAGES: '0' }, CWD).builds.installPackages, false);
    assert.equal(loadConfig({ ATOLL_INSTALL_PACKAGES: 'true' }, CWD).builds.installPackages, true);
    assert.throws(
      () => loadConfig({ ATOLL_INSTALL_PACKAGES: 'no' }, CWD),
      /ATOLL_INSTALL_PACKAGES must be 1 or 0/,
    );
  });

  it('reads the networks sandboxes may reach (ATOLL_SANDBOX_ALLOW_NETWORKS) and refuses malformed ones by name', () => {
    const { allowNetworks } = loadConfig(
      {
        ATOLL_SANDBOX_ALLOW_NETWORKS:
          ' 10.1.2.0/24, 10.9.9.9:5000 ,172.16.0.0/12:443, fd00::/64, [FD00::53]:53, [fd00:1::/48]:8443',
      },
      CWD,
    ).builds;
    assert.deepEqual(allowNetworks, [
      { family: 4, cidr: '10.1.2.0/24', port: undefined },
      { family: 4, cidr: '10.9.9.9/32', port: 5000 },
      { family: 4, cidr: '172.16.0.0/12', port: 443 },
      { family: 6, cidr: 'fd00::/64', port: undefined },
      { family: 6, cidr: 'fd00::53/128', port: 53 },
      { family: 6, cidr: 'fd00:1::/48', port: 8443 },
    ]);
    assert.equal(Object.isFrozen(allowNetworks), true);
    for (const entry of [
      'registry.internal',
      '10.1.2.0/33',
      '10.1.2.0/',
      '10.1.2.3:0',
      '10.1.2.3:65536',
      'fd00::1:443x',
      '[fd00::1]:',
      '10.1.2.0/24/8',
    ])
      assert.throws(
        () => loadConfig({ ATOLL_SANDBOX_ALLOW_NETWORKS: entry }, CWD),
        new RegExp(`ATOLL_SANDBOX_ALLOW_NETWORKS must be .*\\(got "${entry.replace(/[[\]/.]/g, '\\$&')}"\\)`),
        entry,
      );
  });

  it('reads the hosts sandboxes may reach wherever they resolve (ATOLL_SANDBOX_ALLOW_HOSTS): the package registries unless set', () => {
    const hosts = (value: string | undefined) =>
      loadConfig(value === undefined ? {} : { ATOLL_SANDBOX_ALLOW_HOSTS: value }, CWD).builds.allowHosts;
    assert.deepEqual(
      hosts(undefined).map((h) => h.name),
      ['registry.npmjs.org', 'registry.yarnpkg.com'],
    );
    assert.deepEqual(hosts(''), []);
    assert.deepEqual(hosts(' Mirror.Internal , git.internal:22'), [
      { name: 'mirror.internal', port: 443 },
      { name: 'git.internal', port: 22 },
    ]);
    for (const entry of [
      '10.1.2.3',
      'mirror.internal:0',
      'mirror.internal:70000',
      'bad_name',
      '-x.example',
      'a:b:c',
    ])
      assert.throws(
        () => loadConfig({ ATOLL_SANDBOX_ALLOW_HOSTS: entry }, CWD),
        /ATOLL_SANDBOX_ALLOW_HOSTS must be a comma-separated list of host names/,
        entry,
      );
  });

  it('resolves a relative data folder against the working directory and keeps an absolute one', () => {
    assert.equal(loadConfig({ ATOLL_DATA_DIR: 'var/atoll' }, CWD).dataDir, join(CWD, 'var', 'atoll'));
    assert.equal(loadConfig({ ATOLL_DATA_DIR: '/srv/atoll' }, CWD).dataDir, '/srv/atoll');
    assert.equal(loadConfig({ ATOLL_DATA_DIR: '/srv/atoll' }, CWD).adminSocketPath, '/srv/atoll/admin.sock');
  });

  it('derives the public URL from host and port, bracketing IPv6 hosts', () => {
    assert.equal(
      loadConfig({ ATOLL_HOST: '0.0.0.0', ATOLL_API_PORT: '3000' }, CWD).publicUrl,
      'http://0.0.0.0:3000',
    );
    assert.equal(loadConfig({ ATOLL_HOST: '::1' }, CWD).publicUrl, 'http://[::1]:8080');
  });

  it('takes an explicit public URL without its trailing slashes', () => {
    assert.equal(
      loadConfig({ ATOLL_PUBLIC_URL: 'https://atoll.example.com//' }, CWD).publicUrl,
      'https://atoll.example.com',
    );
  });

  it('reads integers at the ends of their ranges', () => {
    const config = loadConfig(
      {
        ATOLL_API_PORT: '0',
        ATOLL_DATABASE_POOL_SIZE: '1000',
        ATOLL_BODY_LIMIT: '1024',
        ATOLL_PASSWORD_HASH_LOG_N: '20',
        ATOLL_SHUTDOWN_TIMEOUT_MS: '0',
      },
      CWD,
    );
    assert.equal(config.apiPort, 0);
    assert.equal(config.databasePoolSize, 1000);
    assert.equal(config.bodyLimitBytes, 1024);
    assert.equal(config.passwordHashLogN, 20);
    assert.equal(config.shutdownTimeoutMs, 0);
  });

  it('reads the database URL, log level, secret key and trusted proxies', () => {
    const config = loadConfig(
      {
        DATABASE_URL: 'postgresql://atoll@db:5432/atoll',
        ATOLL_LOG_LEVEL: 'debug',
        ATOLL_SECRET_KEY: ' abc ',
        ATOLL_TRUST_PROXY: ' 10.0.0.1, ,192.168.0.0/16 ,',
      },
      CWD,
    );
    assert.equal(config.databaseUrl, 'postgresql://atoll@db:5432/atoll');
    assert.equal(config.logLevel, 'debug');
    assert.equal(config.secretKey, 'abc');
    assert.deepEqual([...config.trustProxy], ['10.0.0.1', '192.168.0.0/16']);
    assert.equal(loadConfig({ DATABASE_URL: 'postgres://x/y' }, CWD).databaseUrl, 'postgres://x/y');
  });

  it('returns a frozen config, nested values included', () => {
    const config = loadConfig(
      { ATOLL_TRUST_PROXY: '10.0.0.1', ATOLL_BOOTSTRAP_ACCOUNT: 'acme', ATOLL_BOOTSTRAP_EMAIL: 'a@b.co' },
      CWD,
    );
    assert.equal(Object.isFrozen(config), true);
    assert.equal(Object.isFrozen(config.trustProxy), true);
    assert.equal(Object.isFrozen(config.bootstrap), true);
    assert.throws(() => {
      (config as { apiPort: number }).apiPort = 1;
    }, TypeError);
    assert.throws(() => {
      (config.trustProxy as string[]).push('0.0.0.0/0');
    }, TypeError);
    assert.equal(config.apiPort, 8080);
    assert.deepEqual([...config.trustProxy], ['10.0.0.1']);
  });
});

describe('loadConfig invalid values', () => {
  it('names each invalid integer variable with its range and value', () => {
    const cases: [string, string, RegExp][] = [
      ['ATOLL_API_PORT', 'http', /ATOLL_API_PORT must be an integer from 0 to 65535 \(got "http"\)/],
      ['ATOLL_API_PORT', '65536', /ATOLL_API_PORT must be an integer from 0 to 65535 \(got "65536"\)/],
      ['ATOLL_API_PORT', '-1', /ATOLL_API_PORT must be an integer/],
      ['ATOLL_API_PORT', '80.5', /ATOLL_API_PORT must be an integer/],
      ['ATOLL_DATABASE_POOL_SIZE', '0', /ATOLL_DATABASE_POOL_SIZE must be an integer from 1 to 1000/],
      ['ATOLL_BODY_LIMIT', '1023', /ATOLL_BODY_LIMIT must be an integer from 1024 to 1073741824/],
      ['ATOLL_RATE_LIMIT_PER_MINUTE', '0', /ATOLL_RATE_LIMIT_PER_MINUTE must be an integer/],
      ['ATOLL_AUTH_FAILURES_PER_MINUTE', 'many', /ATOLL_AUTH_FAILURES_PER_MINUTE must be an integer/],
      ['ATOLL_AUTH_CACHE_TTL_MS', '86400001', /ATOLL_AUTH_CACHE_TTL_MS must be an integer/],
      ['ATOLL_ACCESS_CACHE_TTL_MS', '-5', /ATOLL_ACCESS_CACHE_TTL_MS must be an integer/],
      ['ATOLL_PASSWORD_HASH_LOG_N', '9', /ATOLL_PASSWORD_HASH_LOG_N must be an integer from 10 to 20/],
      ['ATOLL_PASSWORD_HASH_LOG_N', '21', /ATOLL_PASSWORD_HASH_LOG_N must be an integer from 10 to 20/],
      ['ATOLL_SHUTDOWN_TIMEOUT_MS', '600001', /ATOLL_SHUTDOWN_TIMEOUT_MS must be an integer/],
      ['ATOLL_EDGE_WORKERS', '0', /ATOLL_EDGE_WORKERS must be an integer from 1 to 256 \(got "0"\)/],
    ];
    for (const [key, value, pattern] of cases) configError({ [key]: value }, pattern);
  });

  it('refuses a public URL that is not an absolute http(s) URL', () => {
    configError({ ATOLL_PUBLIC_URL: 'atoll.example.com' }, /ATOLL_PUBLIC_URL must be an absolute URL/);
    configError(
      { ATOLL_PUBLIC_URL: 'ftp://atoll.example.com' },
      /ATOLL_PUBLIC_URL must be an http or https URL/,
    );
  });

  it('refuses a database URL that is not postgres', () => {
    configError(
      { DATABASE_URL: 'mysql://db/atoll' },
      /DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/,
    );
  });

  it('refuses an unknown log level', () => {
    configError({ ATOLL_LOG_LEVEL: 'verbose' }, /ATOLL_LOG_LEVEL must be one of fatal, error, warn, info/);
    configError({ ATOLL_LOG_LEVEL: 'INFO' }, /ATOLL_LOG_LEVEL/);
  });

  it('reports every problem at once', () => {
    configError(
      { ATOLL_API_PORT: 'x', ATOLL_LOG_LEVEL: 'loud', DATABASE_URL: 'sqlite:x' },
      /ATOLL_API_PORT/,
      /ATOLL_LOG_LEVEL/,
      /DATABASE_URL/,
    );
  });

  it('refuses a data folder too long for the admin socket path', () => {
    configError(
      { ATOLL_DATA_DIR: `/tmp/${'d'.repeat(100)}` },
      /longer than Unix sockets allow/,
      /ATOLL_DATA_DIR/,
    );
    // 100 bytes is the limit: "/" + 88 characters + "/admin.sock" (11 bytes) is exactly 100.
    const fits = `/${'d'.repeat(88)}`;
    assert.equal(loadConfig({ ATOLL_DATA_DIR: fits }, CWD).adminSocketPath.length, 100);
    configError({ ATOLL_DATA_DIR: `/${'d'.repeat(89)}` }, /ATOLL_DATA_DIR/);
  });
});

describe('loadConfig bootstrap', () => {
  it('is undefined without ATOLL_BOOTSTRAP_ACCOUNT', () => {
    assert.equal(loadConfig({}, CWD).bootstrap, undefined);
  });

  it('takes an account alone, with an email, or with an email and a password', () => {
    assert.deepEqual(loadConfig({ ATOLL_BOOTSTRAP_ACCOUNT: 'acme' }, CWD).bootstrap, {
      account: 'acme',
      email: undefined,
      password: undefined,
    });
    assert.deepEqual(
      loadConfig({ ATOLL_BOOTSTRAP_ACCOUNT: ' acme ', ATOLL_BOOTSTRAP_EMAIL: ' ops@example.com ' }, CWD)
        .bootstrap,
      { account: 'acme', email: 'ops@example.com', password: undefined },
    );
    assert.deepEqual(
      loadConfig(
        {
          ATOLL_BOOTSTRAP_ACCOUNT: 'acme',
          ATOLL_BOOTSTRAP_EMAIL: 'ops@example.com',
          ATOLL_BOOTSTRAP_PASSWORD: ' spaces kept ',
        },
        CWD,
      ).bootstrap,
      { account: 'acme', email: 'ops@example.com', password: ' spaces kept ' },
    );
  });

  it('refuses an email or password without an account', () => {
    configError(
      { ATOLL_BOOTSTRAP_EMAIL: 'ops@example.com' },
      /ATOLL_BOOTSTRAP_EMAIL and ATOLL_BOOTSTRAP_PASSWORD need ATOLL_BOOTSTRAP_ACCOUNT/,
    );
    configError(
      { ATOLL_BOOTSTRAP_EMAIL: 'ops@example.com', ATOLL_BOOTSTRAP_PASSWORD: 'a long password' },
      /need ATOLL_BOOTSTRAP_ACCOUNT/,
    );
  });

  it('refuses a password without an email', () => {
    configError(
      { ATOLL_BOOTSTRAP_ACCOUNT: 'acme', ATOLL_BOOTSTRAP_PASSWORD: 'a long password' },
      /ATOLL_BOOTSTRAP_PASSWORD needs ATOLL_BOOTSTRAP_EMAIL/,
    );
  });
});

describe('loadConfig build settings', () => {
  it('reads the uid range and refuses ranges outside unprivileged uids', () => {
    assert.deepEqual(loadConfig({ ATOLL_BUILD_UID_RANGE: '70000-70099' }, '/srv').builds.uidRange, {
      first: 70_000,
      last: 70_099,
    });
    for (const bad of ['0-100', '61000', '62000-61000', '60000-65534', 'a-b']) {
      assert.throws(
        () => loadConfig({ ATOLL_BUILD_UID_RANGE: bad }, '/srv'),
        /ATOLL_BUILD_UID_RANGE must be "first-last"/,
        bad,
      );
    }
  });

  it('reads the WordPress URL template and the limits', () => {
    const config = loadConfig(
      { ATOLL_WP_URL_TEMPLATE: 'https://{wpEnvironment}.wp.example', ATOLL_BUILD_TIMEOUT_MS: '60000' },
      '/srv',
    );
    assert.equal(config.builds.wpUrlTemplate, 'https://{wpEnvironment}.wp.example');
    assert.equal(config.builds.limits.wallMs, 60_000);
    assert.throws(
      () => loadConfig({ ATOLL_BUILD_CONCURRENCY: '0' }, '/srv'),
      /ATOLL_BUILD_CONCURRENCY must be an integer from 1 to 64/,
    );
  });
});

describe('loadConfig process roles', () => {
  const DB = { DATABASE_URL: 'postgres://127.0.0.1:5432/atoll' };

  it('runs every role by default, and with "all"', () => {
    const every = ['api', 'worker', 'runtime', 'edge', 'scheduler'];
    assert.deepEqual(loadConfig({}, CWD).roles, every);
    assert.deepEqual(loadConfig({ ATOLL_ROLES: 'all' }, CWD).roles, every);
    assert.deepEqual(loadConfig({ ATOLL_ROLES: ' ALL ' }, CWD).roles, every, 'case and spaces do not matter');
  });

  it('reads a list in the canonical order, each role once', () => {
    assert.deepEqual(loadConfig({ ...DB, ATOLL_ROLES: 'edge, runtime,edge' }, CWD).roles, [
      'runtime',
      'edge',
    ]);
    assert.deepEqual(loadConfig({ ...DB, ATOLL_ROLES: 'scheduler,api' }, CWD).roles, ['api', 'scheduler']);
  });

  it('names the unknown role and the roles there are', () => {
    configError(
      { ...DB, ATOLL_ROLES: 'api,builder' },
      /ATOLL_ROLES \(--roles\): unknown role "builder": the roles are api, worker, runtime, edge, scheduler \(or all\)/,
    );
    configError({ ...DB, ATOLL_ROLES: 'web,cron' }, /unknown roles "web", "cron"/);
    configError({ ...DB, ATOLL_ROLES: 'all,api' }, /"all" already names every role: give it alone/);
    configError({ ...DB, ATOLL_ROLES: ',' }, /name at least one role/);
  });

  it('refuses roles apart on the embedded store, saying why', () => {
    configError(
      { ATOLL_ROLES: 'edge' },
      /ATOLL_ROLES \(--roles\) "edge" needs DATABASE_URL: the embedded database belongs to the one process that opens it/,
    );
    // Every role named one by one is all of them: one process, which the embedded store allows.
    assert.equal(loadConfig({ ATOLL_ROLES: 'api,worker,runtime,edge,scheduler' }, CWD).roles.length, 5);
  });

  it('reads the health port (0: any free port), ATOLL_MIGRATE and the node heartbeat', () => {
    const config = loadConfig(
      {
        ATOLL_HEALTH_PORT: '0',
        ATOLL_MIGRATE: 'off',
        ATOLL_NODE_HEARTBEAT_MS: '1000',
        ATOLL_NODE_LEASE_MS: '3000',
      },
      CWD,
    );
    assert.equal(config.healthPort, 0);
    assert.equal(config.migrateAtStart, false);
    assert.deepEqual(config.nodes, { heartbeatMs: 1_000, leaseMs: 3_000, pruneAfterMs: 3_600_000 });
    assert.equal(loadConfig({ ATOLL_MIGRATE: 'on' }, CWD).migrateAtStart, true);
    configError({ ATOLL_MIGRATE: 'later' }, /ATOLL_MIGRATE must be on or off \(got "later"\)/);
    configError({ ATOLL_HEALTH_PORT: '70000' }, /ATOLL_HEALTH_PORT must be an integer from 0 to 65535/);
    configError(
      { ATOLL_NODE_HEARTBEAT_MS: '5000', ATOLL_NODE_LEASE_MS: '6000' },
      /ATOLL_NODE_LEASE_MS must be at least twice ATOLL_NODE_HEARTBEAT_MS/,
    );
  });
});

describe('loadConfig blob store (ATOLL_BLOB_URL)', () => {
  const s3 = {
    ATOLL_BLOB_URL: 's3://atoll-blobs/eu/prod/',
    AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9000',
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'very-secret-key',
  };

  it('reads the bucket, prefix, endpoint, region, keys and cache bound, path-style with an endpoint', () => {
    const config = loadConfig({ ...s3, ATOLL_BLOB_CACHE_BYTES: '1073741824' }, '/srv/atoll');
    assert.deepEqual(config.blobs, {
      kind: 's3',
      url: 's3://atoll-blobs/eu/prod/',
      bucket: 'atoll-blobs',
      prefix: 'eu/prod/',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'very-secret-key' },
      cacheDir: '/srv/atoll/data/cache/blobs',
      cacheBytes: 1024 ** 3,
    });
  });

  it('uses AWS S3 itself with the SDK chain of credentials when only the bucket is set', () => {
    const config = loadConfig({ ATOLL_BLOB_URL: 's3://atoll-blobs' }, '/srv/atoll');
    assert.ok(config.blobs.kind === 's3');
    assert.equal(config.blobs.prefix, '');
    assert.equal(config.blobs.endpoint, undefined);
    assert.equal(config.blobs.region, 'us-east-1');
    assert.equal(config.blobs.forcePathStyle, false);
    assert.equal(config.blobs.credentials, undefined);
    assert.equal(config.blobs.cacheBytes, 5 * 1024 ** 3);
  });

  it('takes AWS_ENDPOINT_URL when no S3 endpoint is set, and the path-style switch both ways', () => {
    const generic = loadConfig(
      {
        ATOLL_BLOB_URL: 's3://atoll-blobs',
        AWS_ENDPOINT_URL: 'https://s3.example.net',
        ATOLL_BLOB_FORCE_PATH_STYLE: '0',
      },
      '/srv',
    );
    assert.ok(generic.blobs.kind === 's3');
    assert.equal(generic.blobs.endpoint, 'https://s3.example.net');
    assert.equal(generic.blobs.forcePathStyle, false);
    const forced = loadConfig(
      { ATOLL_BLOB_URL: 's3://atoll-blobs', ATOLL_BLOB_FORCE_PATH_STYLE: '1' },
      '/srv',
    );
    assert.ok(forced.blobs.kind === 's3' && forced.blobs.forcePathStyle);
  });

  it('refuses a malformed URL, endpoint or half a key pair by name, never repeating a secret', () => {
    configError({ ATOLL_BLOB_URL: 'https://bucket.example' }, /ATOLL_BLOB_URL must be s3:\/\/bucket/);
    configError({ ATOLL_BLOB_URL: 's3://Bad_Bucket/x' }, /ATOLL_BLOB_URL must be s3:\/\/bucket/);
    configError({ ATOLL_BLOB_URL: 's3://atoll-blobs/a/../b' }, /ATOLL_BLOB_URL's prefix/);
    configError(
      { ...s3, AWS_ENDPOINT_URL_S3: 'ftp://host' },
      /AWS_ENDPOINT_URL_S3 \(or AWS_ENDPOINT_URL\) must be/,
    );
    configError({ ...s3, AWS_ACCESS_KEY_ID: '' }, /AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together/);
    configError({ ...s3, ATOLL_BLOB_CACHE_BYTES: '10' }, /ATOLL_BLOB_CACHE_BYTES must be an integer/);
    for (const env of [
      { ATOLL_BLOB_URL: 's3://AKIAEXAMPLE:very-secret-key@atoll-blobs' },
      { ...s3, AWS_ACCESS_KEY_ID: '', AWS_ENDPOINT_URL_S3: 'http://AKIAEXAMPLE:very-secret-key@host' },
    ])
      assert.throws(
        () => loadConfig(env, '/srv'),
        (error: unknown) =>
          error instanceof ConfigError && !/very-secret-key|AKIAEXAMPLE/.test(error.message),
      );
  });
});
