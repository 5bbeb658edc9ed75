/**
 * The real API on a loopback port over a test store, with the clock, settings and client calls tests need.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { CommandRunner } from '../../src/sandbox/command-runner.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createAesSecretBox } from '../../src/adapters/aes-secret-box.js';
import type { ArchiveLimits } from '../../src/domain/builds/archive-rules.js';
import { loadConfig, type DomainSettings, type HostingSettings } from '../../src/config/load-config.js';
import { buildApiServer } from '../../src/http/build-api-server.js';
import type { ApiInstance } from '../../src/http/api-instance.js';
import { composeServices, type Services } from '../../src/main/compose/all-roles.js';
import { DOCS_DIR, PORTAL_DIR } from '../../src/main/installation-dirs.js';
import { listenPlatformServices } from '../../src/main/platform-services-listener.js';
import type { FastifyInstance } from 'fastify';
import { systemClock } from '../../src/adapters/system-clock.js';
import type { Clock, Timer } from '../../src/services/kit/platform-ports.js';
import { openTestStore, type TestStore } from './test-store.js';
import { testRunUidRange } from './test-run-uid-range.js';
import { keepToolchains, pruneSharedToolchains, SHARED_TOOLCHAINS } from './shared-toolchains.js';
import { PROCESS_ROLES } from '../../src/domain/process-roles.js';

export interface Credentials {
  readonly userId: string;
  readonly password: string;
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  /** Parsed JSON, or undefined for an empty body. */
  readonly body: any;
  readonly text: string;
}

export interface RequestOptions {
  readonly auth?: Credentials | null;
  readonly body?: unknown;
  /** Sent as is, instead of JSON.stringify(body). */
  readonly rawBody?: string;
  readonly headers?: Record<string, string>;
}

/**
 * A settable clock for tests that skip time: only now() is set; sleeps take real time, so
 * the loops of the composed services go on polling (test/helpers/fake-clock.ts skips sleeps too).
 */
export class TestClock implements Clock, Timer {
  #now: number;
  constructor(start = Date.parse('2026-11-21T12:00:00Z')) {
    this.#now = start;
  }
  now(): Date {
    return new Date(this.#now);
  }
  advance(ms: number): void {
    this.#now += ms;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return systemClock.sleep(ms, signal);
  }
}

export interface TestApiOptions {
  readonly clock?: Clock & Timer;
  readonly rateLimitPerMinute?: number;
  readonly webhookTriggersPerMinute?: number;
  readonly authFailuresPerMinute?: number;
  /** Addresses whose X-Forwarded-For is trusted: a test can then sign in "from" other addresses. */
  readonly trustProxy?: readonly string[];
  readonly bodyLimitBytes?: number;
  readonly authCacheTtlMs?: number;
  readonly uploadLimits?: Partial<ArchiveLimits>;
  /** Build and hosting settings from these variables (ATOLL_BUILD_TIMEOUT_MS, ATOLL_BASE_DOMAIN, …) over the defaults. */
  readonly buildEnv?: Record<string, string>;
  /** Serve the built portal (dist/web) at `/`, as `atoll serve` does. */
  readonly portal?: boolean;
  /** The portal's folder when not dist/web (a benchmark's baseline build). */
  readonly portalDir?: string;
  /** Where build commands run; the bubblewrap sandbox by default. */
  readonly commandRunner?: CommandRunner;
  /** Every line the server logs, at debug level, is added here (tests that grep the log for secrets). */
  readonly logLines?: string[];
  /**
   * A store the test opened and closes, shared with other TestApis as processes share one server:
   * a server store is then named in the settings (databaseUrl), as `atoll serve` sees DATABASE_URL,
   * so rate limits and throttles count in the store. Without it, each API has a store of its own.
   */
  readonly sharedStore?: TestStore;
}

export const DEFAULT_TEST_UPLOAD_LIMITS: ArchiveLimits = {
  maxArchiveBytes: 50 * 1024 * 1024,
  maxEntries: 1_000,
  maxUnpackedBytes: 200 * 1024 * 1024,
  maxCompressionRatio: 200,
  maxArchiveRatio: 100,
};

/**
 * The real API on a loopback port over the test store, with cheap password hashing (the
 * cost is a setting; production keeps the default).
 */
export class TestApi {
  /** Set to answer as a server that is shutting down. */
  shuttingDown = false;

  private constructor(
    readonly url: string,
    readonly app: ApiInstance,
    readonly services: Services,
    readonly testStore: TestStore,
    /** The data folder of this API: blobs/ and tmp/ live here. */
    readonly dataDir: string,
    readonly hosting: HostingSettings,
    readonly domains: DomainSettings,
    /** Whether close() closes the store (it opened it) or leaves it to the test that shares it. */
    private readonly ownsStore: boolean,
    /** Whether close() gives this data folder's toolchains to the tests after it (shared-toolchains.ts). */
    private readonly sharesToolchains: boolean,
  ) {}

  static async start(options: TestApiOptions = {}): Promise<TestApi> {
    const testStore = options.sharedStore ?? (await openTestStore());
    const dataDir = mkdtempSync(join(tmpdir(), 'atoll-api-'));
    const uploadLimits = { ...DEFAULT_TEST_UPLOAD_LIMITS, ...options.uploadLimits };
    const config = loadConfig({ ...testRunUidRange(), ...options.buildEnv }, dataDir);
    const { hosting, domains } = config;
    // With an object store the toolchains must be fetched (and land in the bucket): such a folder starts empty.
    const sharesToolchains = config.blobs.kind === 'filesystem';
    const { logLines } = options;
    const logger =
      logLines === undefined
        ? pino({ level: process.env.ATOLL_TEST_LOG === '1' ? 'info' : 'silent' })
        : pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) });
    const services = composeServices({
      store: testStore.store,
      platformKey: Buffer.alloc(32, 7),
      clock: options.clock ?? systemClock,
      logger,
      settings: {
        authCacheTtlMs: options.authCacheTtlMs ?? 300_000,
        accessCacheTtlMs: 30_000,
        authFailuresPerMinute: options.authFailuresPerMinute ?? 1_000,
        passwordHashLogN: 10,
        dataDir,
        logLevel: 'silent',
        uploadLimits,
        builds: config.builds,
        hosting,
        domains,
        events: config.events,
        git: config.git,
        reports: config.reports,
        sessions: config.sessions,
        // In this data folder, as the platform's own; an object store when buildEnv sets ATOLL_BLOB_URL.
        blobs:
          config.blobs.kind === 'filesystem'
            ? { kind: 'filesystem', root: join(dataDir, 'blobs') }
            : { ...config.blobs, cacheDir: join(dataDir, 'cache', 'blobs') },
        publicUrl: 'http://127.0.0.1:8080',
        // Each test has its own database, worked on by this process alone, unless it is shared.
        databaseUrl: options.sharedStore?.url,
      },
      commandRunner: options.commandRunner,
      toolchainsFrom: sharesToolchains ? SHARED_TOOLCHAINS : undefined,
    });
    const state = { api: undefined as TestApi | undefined };
    const app = await buildApiServer({
      services,
      logger,
      readiness: {
        isShuttingDown: () => state.api?.shuttingDown ?? false,
        checkStore: () => testStore.store.ping(),
        stoppedRoles: () => services.roles.stopped(),
        roles: PROCESS_ROLES,
      },
      options: {
        bodyLimitBytes: options.bodyLimitBytes ?? 1_048_576,
        rateLimitPerMinute: options.rateLimitPerMinute ?? 1_000_000,
        publicUrl: 'http://127.0.0.1:8080',
        trustProxy: options.trustProxy ?? [],
        uploadLimits,
        webhookTriggersPerMinute: options.webhookTriggersPerMinute ?? 10,
        docsDir: DOCS_DIR,
        // A build of the portal elsewhere (vite build --outDir) lets two people test the portal side by side.
        ...(options.portal === true && {
          portalDir: options.portalDir ?? process.env.ATOLL_TEST_PORTAL_DIR ?? PORTAL_DIR,
        }),
        sessions: config.sessions,
      },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (typeof address !== 'object' || address === null) throw new Error('no address');
    state.api = new TestApi(
      `http://127.0.0.1:${address.port}`,
      app,
      services,
      testStore,
      dataDir,
      hosting,
      domains,
      options.sharedStore === undefined,
      sharesToolchains,
    );
    return state.api;
  }

  #edgePort: number | undefined;
  #edgeTlsPort: number | undefined;
  #platform: FastifyInstance | undefined;

  /** Starts the edge on a loopback port and the platform services on their socket, as serve does. */
  async startHosting(): Promise<number> {
    const edge = this.services.edge.server;
    await new Promise<void>((resolve) => edge.listen(0, '127.0.0.1', resolve));
    const address = edge.address();
    if (typeof address !== 'object' || address === null) throw new Error('no edge address');
    this.#edgePort = address.port;
    if (this.domains.tlsPort !== undefined) {
      const tls = this.services.edge.tlsServer;
      // A free port, as for the HTTP edge; the settings keep the configured one for URLs.
      await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
      const tlsAddress = tls.address();
      if (typeof tlsAddress === 'object' && tlsAddress !== null) this.#edgeTlsPort = tlsAddress.port;
    }
    this.#platform = await listenPlatformServices(this.services, pino({ level: 'silent' }), this.hosting);
    return address.port;
  }

  /** The edge's HTTPS port (startHosting first, with ATOLL_ACME_DIRECTORY set). */
  get edgeTlsPort(): number {
    if (this.#edgeTlsPort === undefined) throw new Error('no HTTPS edge: set ATOLL_ACME_DIRECTORY');
    return this.#edgeTlsPort;
  }

  /** The edge port (startHosting first). */
  get edgePort(): number {
    if (this.#edgePort === undefined) throw new Error('call startHosting() first');
    return this.#edgePort;
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.auth)
      headers.authorization = `Basic ${Buffer.from(`${options.auth.userId}:${options.auth.password}`).toString('base64')}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.url}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  }

  /** An account with an owner who has API credentials. */
  async createTenant(account: string, ownerEmail = `owner@${account}.test`): Promise<Credentials> {
    await this.services.operator.createAccount(account, ownerEmail, 'correct horse battery staple');
    const generated = await this.services.credentials.generateForAccount(account, ownerEmail);
    return { userId: generated.userId, password: generated.password };
  }

  /** The account `acme`, its owner and the upload app `web` in region UK: where most API suites start. */
  async createUploadApp(): Promise<Credentials> {
    const owner = await this.createTenant('acme');
    await this.request('POST', '/v1/accounts/acme/apps?appId=web', {
      auth: owner,
      body: { region: 'UK', uploadable: {} },
    });
    return owner;
  }

  /** The environment "Production" of the app `web` on the upload branch: the answer to its creation. */
  async createUploadEnvironment(owner: Credentials): Promise<Answer> {
    return this.request('POST', '/v1/accounts/acme/apps/web/environments', {
      auth: owner,
      body: { displayName: 'Production', branch: 'uploadable' },
    });
  }

  /** A user with the role in the account, and API credentials of that user. */
  async addMember(
    account: string,
    email: string,
    role: 'owner' | 'developer' | 'viewer',
  ): Promise<Credentials> {
    await this.services.operator.createUser(email, 'correct horse battery staple');
    await this.services.operator.addMember(account, email, role);
    const user = await this.testStore.store.users.findByEmail(email);
    if (!user) throw new Error('user missing');
    const credential = await this.services.credentials.generateForCaller({
      userId: user.id,
      credentialId: 'test',
    });
    return { userId: credential.userId, password: credential.password };
  }

  async reset(): Promise<void> {
    await this.testStore.reset();
  }

  async close(): Promise<void> {
    await this.services.reportScheduler.stop();
    await this.services.healthProber.stop();
    this.services.mailer?.close();
    await this.services.certificates?.stop();
    await this.services.deliveryWorker.stop();
    await this.services.commitStatuses.stop();
    await this.services.domainReconciler.settled();
    await this.services.runtime.stop();
    await this.services.runtimeLogs.stop();
    await this.services.usageMeter.stop();
    if (this.#edgePort !== undefined) {
      this.services.edge.server.closeAllConnections();
      await new Promise((resolve) => this.services.edge.server.close(resolve));
    }
    if (this.#edgeTlsPort !== undefined) {
      this.services.edge.tlsServer.closeAllConnections();
      await new Promise((resolve) => this.services.edge.tlsServer.close(resolve));
    }
    await this.#platform?.close();
    await this.app.close();
    if (this.ownsStore) await this.testStore.close();
    if (this.sharesToolchains) {
      keepToolchains(this.dataDir);
      await pruneSharedToolchains();
    }
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export function secretBoxForTests() {
  return createAesSecretBox(Buffer.alloc(32, 7));
}
