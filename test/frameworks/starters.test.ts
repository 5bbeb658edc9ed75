import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { sandboxProblem } from '../../src/sandbox/sandbox-runner.js';
import { BuildHarness } from '../helpers/build-harness.js';
import {
  appRoot,
  FRAMEWORK_APPS,
  linkedPaths,
  SHELL_VARIABLE,
  VITE_SHELL_VARIABLE,
  variablePattern,
  type Check,
  type FrameworkApp,
} from './framework-apps.js';
import {
  GOOGLE_FONTS_MOCK,
  GOOGLE_FONTS_MOCK_FILE,
  GOOGLE_FONTS_MOCK_VARIABLE,
  googleFontsReachable,
} from './google-fonts.js';
import { SharedNpmCache } from './shared-npm-cache.js';

/**
 * Each framework's own starter (test/frameworks/apps/, lockfiles from the registry), uploaded, built by npm
 * in the real sandbox and checked through the edge, one app after the other with one npm cache folder:
 * the home page, a hashed asset cached for a year, a page showing a shell variable, an API route, the
 * framework's 404 and a second deploy on the warm cache. `npm run test:frameworks`; docs/frameworks.md.
 */

/** Generous bound for an install and build from the registry (not a timed assertion). */
const BUILD_TIMEOUT_MS = 15 * 60_000;

/** A year, the max-age hashed assets are cached for. */
const YEAR_SECONDS = 31_536_000;

/** ATOLL_FRAMEWORKS=next16-app,nuxt4 runs those starters only (to check one framework); unset: all of them. */
const ONLY = process.env.ATOLL_FRAMEWORKS?.split(',').filter((name) => name !== '');
const APPS = FRAMEWORK_APPS.filter((app) => ONLY === undefined || ONLY.includes(app.name));
/**
 * Without Google Fonts, next/font/google in the Next.js starters answers from Next's own mock module, added to
 * their upload (google-fonts.ts); where Google Fonts is reachable nothing is added.
 */
const MOCK_GOOGLE_FONTS = !(await googleFontsReachable());
const mocksGoogleFonts = (app: FrameworkApp) => MOCK_GOOGLE_FONTS && app.framework === 'nextjs';

describe('framework starters, built and served by Atoll', { skip: sandboxProblem() }, () => {
  let h: BuildHarness;
  let npmCache: SharedNpmCache;
  const started = Date.now();

  before(async () => {
    assert.equal(
      APPS.length,
      ONLY?.length ?? FRAMEWORK_APPS.length,
      `ATOLL_FRAMEWORKS names unknown starters`,
    );
    h = await BuildHarness.start();
    await h.api.startHosting();
    npmCache = new SharedNpmCache(h.api.dataDir, process.env.ATOLL_FRAMEWORKS_NPM_CACHE);
  });
  after(async () => {
    await h.stop();
  });

  /** An environment of app `web` for one starter, with the shell variables its pages show. */
  async function createEnvironment(app: FrameworkApp): Promise<string> {
    const envId = await h.createEnvironment(app.name, {
      shellVariables: [
        SHELL_VARIABLE,
        VITE_SHELL_VARIABLE,
        ...(app.variables ?? []),
        ...(mocksGoogleFonts(app) ? [GOOGLE_FONTS_MOCK_VARIABLE] : []),
      ],
    });
    await npmCache.lendTo(envId);
    return envId;
  }

  /** Uploads the starter and waits for its build; the build resource, its log and the operation's answer. */
  async function deploy(app: FrameworkApp, envId: string): Promise<{ done: any; build: any; log: string }> {
    const extraFiles: Record<string, string> = mocksGoogleFonts(app)
      ? { [GOOGLE_FONTS_MOCK_FILE]: GOOGLE_FONTS_MOCK }
      : {};
    const { operation, buildId } = await h.upload(app.name, envId, appRoot(app), extraFiles);
    const done = await h.waitDone(operation, BUILD_TIMEOUT_MS);
    // The operation is done when the build succeeds; traffic moves right after ("deployment live").
    if (done.error === undefined) await h.waitForLog(buildId, 'deployment live');
    const build = (
      await h.api.request('GET', `/v1/accounts/acme/apps/web/environments/${envId}/builds/${buildId}`, {
        auth: h.owner,
      })
    ).body;
    return { done, build, log: await h.logOf(buildId) };
  }

  for (const app of APPS) {
    describe(app.title, () => {
      let envId = '';
      const edge = (path: string) => h.edge(path, { host: h.hostOf(envId) });
      /** Marks a check as todo when a known defect of issue 22, fixed in another branch, makes it fail. */
      const check = (name: Check, title: string, fn: (t: TestContext) => Promise<void>) => {
        const todo = app.pending?.[name];
        it(title, todo === undefined ? {} : { todo }, fn);
      };

      before(async () => {
        envId = await createEnvironment(app);
      });
      after(async () => {
        await npmCache.takeBack(envId);
      });

      if (app.expectedFailure !== undefined) {
        const expected = app.expectedFailure;
        check('build', "fails its build with the framework's own message as the failure reason", async () => {
          const { done, build, log } = await deploy(app, envId);
          assert.notEqual(done.error, undefined, `the build was expected to fail:\n${log}`);
          assert.equal(build.state, 'FAILED');
          for (const line of expected) assert.match(log, line, 'the framework said it in the log');
          assert.equal(build.framework, app.framework, 'the detected framework is kept on a failed build');
          const reason = String(build.failureReason?.message ?? '');
          for (const line of expected) assert.match(reason, line, `failureReason: ${reason}`);
        });
        return;
      }

      check('build', `builds and deploys as a ${app.serves} app`, async (t) => {
        const { done, build, log } = await deploy(app, envId);
        assert.equal(done.error, undefined, `${JSON.stringify(done.error)}\n${log}`);
        assert.equal(build.state, 'SUCCEEDED', log);
        assert.equal(build.framework, app.framework, log);
        assert.match(
          log,
          app.serves === 'server' ? /deployment live \(server app\)/ : /deployment live/,
          log,
        );
        if (app.serves === 'static') assert.doesNotMatch(log, /deployment live \(server app\)/, log);
        t.diagnostic(`${app.name}: ${String(build.startTime)} → ${String(build.finishTime)}`);
      });

      check('home', 'serves its home page', async () => {
        const home = await edge('/');
        const html = await home.text();
        assert.equal(home.status, 200, html.slice(0, 2_000));
        assert.match(home.headers.get('content-type') ?? '', /text\/html/);
        assert.match(html, /<html/i);
      });

      check(
        'asset',
        'serves a hashed asset the home page links with a year of immutable caching',
        async () => {
          const html = await (await edge('/')).text();
          const asset = linkedPaths(html).find((path) => app.assetPath.test(path));
          assert.ok(
            asset,
            `no link matching ${String(app.assetPath)} on the home page:\n${html.slice(0, 4_000)}`,
          );
          const answer = await edge(asset);
          assert.equal(answer.status, 200, asset);
          assert.ok(answer.body.length > 0, asset);
          const cacheControl = answer.headers.get('cache-control') ?? '';
          assert.match(cacheControl, /immutable/, `${asset}: Cache-Control ${cacheControl}`);
          const maxAge = Number(/max-age=(\d+)/.exec(cacheControl)?.[1] ?? 0);
          assert.ok(maxAge >= YEAR_SECONDS, `${asset}: Cache-Control ${cacheControl}`);
        },
      );

      if (app.deepLink !== undefined) {
        const deepLink = app.deepLink;
        check('deepLink', `answers its client-side route ${deepLink} with index.html`, async () => {
          const page = await edge(deepLink);
          const html = await page.text();
          assert.equal(page.status, 200, html.slice(0, 2_000));
          assert.equal(html, await (await edge('/')).text(), 'the deep link is the SPA shell');
        });
        check('variable', 'shows the shell variable, inlined into its bundle at build time', async () => {
          const page = await edge('/');
          assert.equal(page.status, 200);
          const scripts = linkedPaths(await page.text()).filter((p) => p.endsWith('.js'));
          assert.ok(scripts.length > 0, 'the page loads its bundle');
          const bundles = await Promise.all(scripts.map(async (path) => (await edge(path)).text()));
          assert.ok(
            bundles.some((js) => js.includes(VITE_SHELL_VARIABLE.value)),
            `${VITE_SHELL_VARIABLE.key} is not in ${scripts.join(', ')}`,
          );
        });
      } else {
        check(
          'variable',
          app.serves === 'server'
            ? `renders ${app.variablePage} on the server with the shell variable`
            : `shows the shell variable on ${app.variablePage} (read at build time)`,
          async () => {
            const page = await edge(app.variablePage);
            const html = await page.text();
            assert.equal(page.status, 200, html.slice(0, 2_000));
            assert.match(
              html,
              variablePattern(SHELL_VARIABLE.key, SHELL_VARIABLE.value),
              html.slice(0, 4_000),
            );
          },
        );
      }

      const apiRoute = app.apiRoute;
      if (apiRoute !== undefined) {
        check('api', `answers its API route ${apiRoute}`, async () => {
          const answer = await edge(apiRoute);
          const text = await answer.text();
          assert.equal(answer.status, 200, text.slice(0, 2_000));
          assert.match(answer.headers.get('content-type') ?? '', /application\/json/);
          assert.deepEqual(JSON.parse(text), { framework: app.name, greeting: SHELL_VARIABLE.value });
        });
      }

      check('notFound', `answers 404 for ${app.notFoundPath}`, async () => {
        // The app's own answer, not the edge's "no site here": the deployment serves its home page.
        assert.equal((await edge('/')).status, 200, 'the app is deployed');
        const answer = await edge(app.notFoundPath);
        const text = await answer.text();
        assert.equal(answer.status, 404, text.slice(0, 2_000));
        assert.doesNotMatch(text, /No site is deployed at this address/);
      });

      check('warm', 'deploys again on the warm build cache', async () => {
        const { done, build, log } = await deploy(app, envId);
        assert.equal(done.error, undefined, `${JSON.stringify(done.error)}\n${log}`);
        assert.equal(build.state, 'SUCCEEDED', log);
        assert.match(log, /node_modules reused from the cache, install skipped/, log);
        assert.match(log, /deployment live/, log);
        const home = await edge('/');
        assert.equal(home.status, 200, 'the new deployment serves');
      });
    });
  }

  it('records the suite time', (t) => {
    t.diagnostic(`framework suite: ${((Date.now() - started) / 1000).toFixed(0)} s`);
  });
});
