import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as captured from '../../../test/builder/captured-failure-outputs.js';
import { limitBehindFailure } from './build-limits.js';
import {
  describeFailedCommand,
  FAILURE_REASON_MAX_BYTES,
  FAILURE_REASON_MAX_LINES,
  missingBuildScriptReason,
} from './failure-reason.js';

const reasonOf = (output: readonly string[], nodeVersion = '22.23.3') =>
  describeFailedCommand({ command: 'npm run build', ended: 'failed with exit code 1', output, nodeVersion });

/** The lines between the heading and the fix. */
const bodyOf = (reason: string) => reason.split('\n').filter((l, i) => i > 0 && !l.startsWith('Fix: '));

describe('describeFailedCommand, on outputs captured from the frameworks', () => {
  it("shows a Next.js type error with its file and code frame, not npm's framing", () => {
    const reason = reasonOf(captured.nextTypeError);
    assert.equal(
      reason,
      [
        'npm run build failed with exit code 1:',
        'Failed to compile.',
        './app/page.tsx:2:9',
        "Type error: Type 'number' is not assignable to type 'string'.",
        '  1 | export default function Page() {',
        '> 2 |   const count: string = 42;',
        '  3 |   return <p>{count}</p>;',
        '  4 | }',
        '  5 |',
      ].join('\n'),
    );
  });

  it('shows both of Next.js\'s "Module not found" errors and names the missing package', () => {
    const reason = reasonOf(captured.nextModuleNotFound);
    assert.match(reason, /^Module not found: Can't resolve '\.\.\/components\/widget'$/m);
    assert.match(reason, /^Module not found: Can't resolve 'left-pad-missing'$/m);
    assert.match(reason, /^Fix: add "left-pad-missing" to dependencies in package\.json/m);
  });

  it('shows the error a Next.js page threw while prerendering, without its stack or digest', () => {
    assert.deepEqual(bodyOf(reasonOf(captured.nextPrerender)), [
      'Error occurred prerendering page "/". Read more: https://nextjs.org/docs/messages/prerender-error',
      'Error: WORDPRESS_URL is not set',
      'Export encountered an error on /page: /, exiting the build.',
    ]);
  });

  it("shows Next.js's own words about an unsupported TypeScript, clipped to a line's bound", () => {
    const body = bodyOf(reasonOf(captured.nextTypeScript7));
    assert.equal(body[0], 'Failed to compile.');
    assert.match(body[1] ?? '', /^TypeScript 7\.0\.2 is not supported by this version of Next\.js\./);
    assert.ok((body[1] ?? '').length <= 300);
  });

  it("shows Vite's (Rolldown's) error from its first line, colours and stack gone", () => {
    const reason = reasonOf(captured.viteUnresolved);
    const body = bodyOf(reason);
    assert.equal(body[0], '✗ Build failed in 381ms');
    assert.ok(body.includes("[UNRESOLVED_IMPORT] Could not resolve './missing.js' in src/main.js"), reason);
    assert.doesNotMatch(reason, /\u001b|aggregateBindingErrorsIntoJsError|Getter\/Setter/);
    assert.ok(reasonOf(captured.viteSyntax).includes('[PARSE_ERROR] Unexpected token'));
  });

  it("shows Astro's errors: an import it cannot resolve, a fetch that failed while prerendering", () => {
    const unresolved = reasonOf(captured.astroUnresolved);
    assert.match(
      unresolved,
      /Could not resolve "\.\.\/components\/Card\.astro" from "src\/pages\/index\.astro"/,
    );
    assert.doesNotMatch(unresolved, /getRollupError|Stack trace/);
    const fetchFailed = bodyOf(reasonOf(captured.astroFetchFailed));
    assert.ok(fetchFailed.some((l) => l.includes('Caught error rendering /: TypeError: fetch failed')));
    assert.ok(fetchFailed.includes('  bad port'), fetchFailed.join('\n'));
  });

  it('names engines.node as the fix when a framework says the Node.js version is not supported', () => {
    const astro = reasonOf(captured.astroNode20, '20.20.2');
    assert.match(astro, /^Node\.js v20\.20\.2 is not supported by Astro!$/m);
    assert.match(
      astro,
      /^Fix: set "engines": \{ "node": ">=22\.12\.0" \} in package\.json: this build ran Node\.js 20\.20\.2/m,
    );
    const npm = reasonOf(captured.npmEbadengine, '20.20.2');
    assert.match(npm, /notsup Required: \{"node":">=24"\}/);
    assert.match(npm, /^Fix: set "engines": \{ "node": ">=24" \}/m);
    const next = reasonOf([
      'You are using Node.js 18.17.0. For Next.js, Node.js version "^18.18.0 || ^19.8.0 || >= 20.0.0" is required.',
    ]);
    assert.match(next, /Fix: set "engines": \{ "node": "\^18\.18\.0 \|\| \^19\.8\.0 \|\| >= 20\.0\.0" \}/);
    const vite = reasonOf([
      'You are using Node.js 18.20.0. Vite requires Node.js version 20.19+ or 22.12+. Please upgrade your Node.js version.',
    ]);
    assert.match(vite, /Fix: set "engines": \{ "node": ">=20\.19 \|\| >=22\.12" \}/);
  });

  it("shows Faust.js's own message without a WordPress, with the URL to set or the check to skip", () => {
    for (const output of [captured.faustNoWordPressUrl, captured.faustUnreachable]) {
      const reason = reasonOf(output);
      assert.match(
        reason,
        /Could not find NEXT_PUBLIC_WORDPRESS_URL|Unable to find a GraphQL endpoint at http:\/\/127\.0\.0\.1:9/,
      );
      assert.match(reason, /^Fix: set NEXT_PUBLIC_WORDPRESS_URL .* `faust build --skip-health-checks`\.$/m);
    }
    assert.match(
      reasonOf(captured.faustUnreachable),
      /error - WPGraphQL may not be active, or your WordPress site is unavailable\./,
    );
  });
});

describe('describeFailedCommand, bounds and plain cases', () => {
  it(`keeps at most ${String(FAILURE_REASON_MAX_LINES)} lines and ${String(FAILURE_REASON_MAX_BYTES)} bytes`, () => {
    const output = Array.from({ length: 100 }, (_, i) => `error ${String(i)}: ${'x'.repeat(400)}`);
    const reason = reasonOf(output);
    assert.ok(reason.split('\n').length <= FAILURE_REASON_MAX_LINES + 1);
    assert.ok(Buffer.byteLength(reason) <= FAILURE_REASON_MAX_BYTES);
    assert.match(reason, /^error 0: x+…$/m, 'from the first line of the error on');
  });

  it('says only what ended when the command printed nothing but framing', () => {
    assert.equal(
      describeFailedCommand({
        command: 'npm ci --include=dev',
        ended: 'was stopped',
        output: [
          '',
          '> app@1.0.0 build',
          '> node build.js',
          'npm error code 1',
          'npm error path /build/source',
        ],
        nodeVersion: '22.1.0',
      }),
      'npm ci --include=dev was stopped',
    );
  });

  it("keeps npm's own error (a 404 package) without its prefix", () => {
    const reason = reasonOf([
      'npm error code E404',
      'npm error 404 Not Found - GET https://registry.npmjs.org/no-such-package-x - Not found',
      "npm error 404  'no-such-package-x@^1.0.0' is not in this registry.",
      'npm error A complete log of this run can be found in: /build/.npm/_logs/x-debug-0.log',
    ]);
    assert.deepEqual(bodyOf(reason), [
      '404 Not Found - GET https://registry.npmjs.org/no-such-package-x - Not found',
      "404  'no-such-package-x@^1.0.0' is not in this registry.",
    ]);
  });

  it('names the script to add when the build calls a missing one', () => {
    assert.match(
      reasonOf([
        'npm error Missing script: "generate"',
        'npm error',
        'npm error To see a list of scripts, run:',
      ]),
      /^Fix: add a "generate" script to package\.json/m,
    );
  });

  it("reads V8's out-of-heap messages as the heap limit (ATOLL_BUILD_HEAP_MB names the fix)", () => {
    assert.equal(
      limitBehindFailure(134, [
        'FATAL ERROR: Ineffective mark-compacts near heap limit Allocation failed - JavaScript heap out of memory',
      ]),
      'heap',
    );
  });
});

describe('missingBuildScriptReason', () => {
  it('names the build command of a framework app uploaded unbuilt', () => {
    assert.match(
      missingBuildScriptReason('nextjs', () => false) ?? '',
      /no "build" script.*Next\.js.*Fix: add "build": "next build"/,
    );
    assert.match(missingBuildScriptReason('astro', () => false) ?? '', /"build": "astro build"/);
  });

  it('lets a framework app uploaded built, a static site and a plain Node server through', () => {
    assert.equal(
      missingBuildScriptReason('nextjs', (path) => path === '.next'),
      undefined,
    );
    assert.equal(
      missingBuildScriptReason('static', () => false),
      undefined,
    );
    assert.equal(
      missingBuildScriptReason('node', () => false),
      undefined,
    );
  });
});
