// @ts-check
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'data/**',
      'node_modules/**',
      'coverage/**',
      'test/fixtures/apps/**',
      'test/frameworks/apps/**',
    ],
  },
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
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
    files: ['src/main/**', 'test/**', 'src/**/*.test.ts', 'bench/**', 'eslint.config.js', 'assets/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
  // The portal's CSP (style-src 'self') refuses inline <style>: these Mantine parts write one.
  {
    files: ['web/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@mantine/core',
              importNames: ['AppShell', 'Flex', 'Grid', 'SimpleGrid', 'InlineStyles'],
              message:
                "It writes an inline <style>, which the portal CSP refuses: use a CSS class (styles.css or the area's own .css).",
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "JSXAttribute > JSXExpressionContainer > ObjectExpression:has(Property[key.name='base'])",
          message:
            'A responsive style prop ({ base, sm, … }) is written as an inline <style>, which the portal CSP refuses: use a CSS class with a media query.',
        },
      ],
    },
  },
  // Unit tests beside their module (src/…/<module>.test.ts) are tests like those under test/.
  {
    files: ['test/**', 'src/**/*.test.ts', 'bench/**'],
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
    files: ['eslint.config.js', '.dependency-cruiser.cjs', 'assets/**/*.mjs', 'assets/**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  // CommonJS on purpose (assets/sandbox-exec.cjs says why): require() is how it imports.
  {
    files: ['assets/**/*.cjs', '.dependency-cruiser.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
