// @ts-check
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

/** What runs only in the server: clients (the CLI's, the portal's) never import it. */
const SERVER_SIDE = [
  './src/services',
  './src/store',
  './src/http',
  './src/adapters',
  './src/main',
  './src/cli',
];

/** Layering from docs/architecture.md: a zone may not import from the listed folders. */
const zones = [
  {
    target: './src/domain',
    from: [
      './src/services',
      './src/store',
      './src/http',
      './src/adapters',
      './src/main',
      './src/cli',
      './src/client',
      './src/config',
    ],
    message: 'domain is pure: no I/O layers',
  },
  {
    target: './src/services',
    from: ['./src/http', './src/store', './src/adapters', './src/main', './src/cli', './src/scheduler'],
    message: 'services depend on ports, not on their implementations',
  },
  {
    target: './src/scheduler',
    from: ['./src/http', './src/store', './src/main', './src/cli', './src/adapters', './src/edge'],
    message: 'scheduler runs services and draws reports, never reaching http or the store',
  },
  {
    target: './src/http',
    from: ['./src/store', './src/adapters', './src/main', './src/cli', './src/scheduler'],
    message: 'http talks to services only',
  },
  {
    target: './src/store',
    from: ['./src/http', './src/main', './src/cli', './src/adapters'],
    message: 'store implements service ports',
  },
  {
    target: './src/adapters',
    from: ['./src/http', './src/store', './src/main', './src/cli'],
    message: 'adapters implement service ports',
  },
  {
    target: './src/builder',
    from: ['./src/http', './src/store', './src/main', './src/cli', './src/adapters'],
    message: 'builder depends on domain and service ports, never on http or the store',
  },
  {
    target: './src/runtime',
    from: ['./src/http', './src/store', './src/main', './src/cli', './src/adapters', './src/edge'],
    message: 'runtime depends on domain, service ports and the builder runners, never on http or the store',
  },
  {
    target: './src/edge',
    from: ['./src/http', './src/store', './src/main', './src/cli', './src/adapters', './src/builder'],
    message: 'edge depends on domain and service ports, never on http or the store',
  },
  {
    target: './src/contract',
    from: [
      './src/services',
      './src/store',
      './src/http',
      './src/adapters',
      './src/main',
      './src/cli',
      './src/client',
    ],
    message: 'contract is shared wire schemas only',
  },
  {
    target: './src/client',
    from: [...SERVER_SIDE, './src/domain'],
    message: 'client depends on contract only',
  },
  {
    target: './web',
    from: [
      ...SERVER_SIDE,
      './src/domain',
      './src/config',
      './src/contract',
      './src/scheduler',
      './src/builder',
      './src/runtime',
      './src/edge',
    ],
    message: 'the portal talks to the API through src/client only',
  },
  {
    target: './src/cli',
    from: ['./src/services', './src/store', './src/http', './src/adapters'],
    message: 'cli uses the client; main wires the server',
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'data/**', 'node_modules/**', 'coverage/**', 'test/fixtures/apps/**'] },
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
      'import-x/extensions': ['.ts', '.tsx', '.js'],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones }],
      'import-x/no-cycle': 'error',
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true },
      ],
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] },
          ],
        },
      ],
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Only src/main reads process.env (config is injected).',
        },
      ],
    },
  },
  {
    files: ['src/main/**', 'test/**', 'bench/**', 'eslint.config.js', 'assets/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['test/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  // Plain JavaScript run by hosted apps' own Node.js (and the platform's, in sandboxes): checked without type information.
  {
    files: ['eslint.config.js', 'assets/**/*.mjs', 'assets/**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  // CommonJS on purpose (assets/sandbox-exec.cjs says why): require() is how it imports.
  {
    files: ['assets/**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
