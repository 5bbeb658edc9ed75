// @ts-check
/**
 * The import graph's rules (docs/architecture.md draws them): every folder says what it may import
 * (an allow-list: an import that no rule allows is an error, so a new folder starts with no arrows),
 * and no cycle of any kind, type-only imports included, anywhere in src, web, test or bench.
 * `npm run lint` runs it; test/unit/import-rules.test.ts proves both rules fire.
 */

/** Paths as dependency-cruiser sees them (relative to the repository, forward slashes). */
const under = (...folders) => `^(${folders.join('|')})/`;

/** The services' subsystems, lowest first: each may import those before it, never those after it. */
const SERVICE_LAYERS = [['kit'], ['access'], ['apps'], ['hosting', 'events'], ['builds', 'domains']];

const PURE = ['src/domain', 'src/contract'];

/** What a test (under test/ or beside its module in src) and a benchmark may import. */
const TESTS_REACH = ['src', 'test', 'bench', 'package.json'];

/** @type {{ from: string[]; to: string[]; why: string }[]} */
const arrows = [
  { from: ['src/domain'], to: ['src/domain'], why: 'domain is pure: it imports only itself' },
  { from: ['src/contract'], to: PURE, why: 'contract is wire schemas over domain names' },
  {
    from: ['src/config'],
    to: ['src/config', 'src/domain'],
    why: 'config validates settings with domain rules',
  },
  ...SERVICE_LAYERS.map((layer, index) => ({
    from: layer.map((name) => `src/services/${name}`),
    to: [
      ...PURE,
      ...SERVICE_LAYERS.slice(0, index + 1)
        .flat()
        .map((name) => `src/services/${name}`),
    ],
    why: 'services subsystems import one way: kit ← access ← apps ← hosting, events ← builds, domains',
  })),
  {
    from: ['src/reports'],
    to: [...PURE, 'src/reports', 'src/services/kit', 'src/services/access'],
    why: 'site reports are one feature on top of the services kit and access',
  },
  {
    from: ['src/sandbox'],
    to: ['src/sandbox', 'src/domain'],
    why: 'the sandbox runs untrusted code; it knows nothing of builds or apps',
  },
  {
    from: ['src/builder'],
    to: [...PURE, 'src/builder', 'src/sandbox', 'src/services/kit', 'src/services/builds'],
    why: 'the builder implements the build ports in a sandbox',
  },
  {
    from: ['src/runtime'],
    to: [...PURE, 'src/runtime', 'src/sandbox', 'src/services/kit', 'src/services/hosting'],
    why: 'the runtime implements the hosting ports in a sandbox',
  },
  {
    from: ['src/edge'],
    to: [...PURE, 'src/edge', 'src/services/kit', 'src/services/hosting', 'src/services/domains'],
    why: 'the edge serves what the hosting and domain ports describe',
  },
  {
    from: ['src/store'],
    to: [...PURE, 'src/store', 'src/services', 'src/reports'],
    why: 'the store implements the ports that services and reports define',
  },
  {
    from: ['src/adapters'],
    to: [...PURE, 'src/adapters', 'src/services', 'src/reports'],
    why: 'adapters implement the ports that services and reports define',
  },
  {
    from: ['src/http'],
    to: [...PURE, 'src/http', 'src/services', 'src/reports'],
    why: 'http is thin routes over services',
  },
  {
    from: ['src/client'],
    to: ['src/client', ...PURE],
    why: 'the client speaks the wire contract (whose names come from domain)',
  },
  {
    from: ['src/cli'],
    to: ['src/cli', 'src/client', ...PURE],
    why: 'the CLI talks to the API through the client',
  },
  { from: ['src/main'], to: ['src'], why: 'main wires every role' },
  { from: ['web'], to: ['web', 'src/client'], why: 'the portal talks to the API through the client only' },
  {
    from: ['test', 'bench'],
    to: TESTS_REACH,
    why: 'tests and benchmarks may reach anything',
  },
];

/** A unit test beside its module (src/…/<module>.test.ts) is a test: it may reach what test/ reaches. */
const TEST_BESIDE_MODULE = '^src/.*\\.test\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'A cycle of imports (type-only ones count): one side should own what both need.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-dev-dependency-in-src',
      comment: 'Code that ships (src) may not import a devDependency: it would be missing on install.',
      severity: 'error',
      from: { path: '^src/', pathNot: TEST_BESIDE_MODULE },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-test-in-shipped-code',
      comment:
        'Code that ships may not import a unit test beside its module: the build leaves tests out of dist.',
      severity: 'error',
      from: { path: '^src/', pathNot: TEST_BESIDE_MODULE },
      to: { path: TEST_BESIDE_MODULE },
    },
    {
      name: 'no-unresolvable',
      comment: 'An import that resolves to nothing.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  allowed: [
    {
      from: {},
      to: {
        dependencyTypes: ['core', 'npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'type-only'],
        path: '^(?!src/|web/|test/|bench/)',
      },
    },
    ...arrows.map(({ from, to, why }) => ({
      comment: why,
      from: { path: under(...from) },
      to: { path: under(...to) },
    })),
    {
      comment: 'a unit test beside its module may reach anything, as tests under test/ may',
      from: { path: TEST_BESIDE_MODULE },
      to: { path: under(...TESTS_REACH) },
    },
  ],
  allowedSeverity: 'error',
  options: {
    includeOnly: '^(src|web|test|bench)/',
    // The fixture of test/unit/import-rules.test.ts breaks the rules on purpose; hosted apps (fixtures, framework starters) are not ours.
    exclude: { path: '^test/(fixtures|frameworks/apps)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'] },
    combinedDependencies: false,
  },
};
