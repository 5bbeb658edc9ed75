/**
 * The framework starters of test/frameworks/apps/ and what the suite expects of each through the edge: the
 * one list the suite (test/frameworks/starters.test.ts), the benchmark (bench/frameworks) and
 * docs/frameworks.md's support table follow.
 */
import { join } from 'node:path';

export const FRAMEWORK_APPS_DIR = new URL('./apps/', import.meta.url).pathname;

/** The shell variable every app shows on its page and in its API route, and its value. */
export const SHELL_VARIABLE = { key: 'FW_GREETING', value: 'greeting-from-the-environment-7f3a' } as const;
/** The same value under the prefix Vite inlines into a client bundle (VITE_*). */
export const VITE_SHELL_VARIABLE = { key: 'VITE_FW_GREETING', value: SHELL_VARIABLE.value } as const;

/** The checks the suite makes on every app that deploys; one `it` each. */
export type Check = 'build' | 'home' | 'asset' | 'variable' | 'api' | 'notFound' | 'deepLink' | 'warm';

export interface FrameworkApp {
  /** Folder under test/frameworks/apps/. */
  readonly name: string;
  /** What the starter is, for test names and the docs. */
  readonly title: string;
  /** Atoll's detected framework (the build's `framework`). */
  readonly framework: string;
  /** How the deployment serves: the edge from files, or a server process in the sandbox. */
  readonly serves: 'static' | 'server';
  /** Paths of the hashed assets the home page links, which must be cached for a year. */
  readonly assetPath: RegExp;
  /** The page that shows the shell variable; `variablePattern` is what its HTML must hold. */
  readonly variablePage: string;
  /** The API route answering JSON { framework, greeting }; undefined for an app without a server or endpoint. */
  readonly apiRoute: string | undefined;
  /** A path the framework answers 404. */
  readonly notFoundPath: string;
  /** A client-side route a single-page app must answer with its index.html. */
  readonly deepLink?: string;
  /** Set when the app's build must fail: what its failureReason must say (the framework's own words). */
  readonly expectedFailure?: readonly RegExp[];
  /** Shell variables of the app's environment besides the shared ones. */
  readonly variables?: readonly { key: string; value: string }[];
  /** Checks failing today because of a defect of issue 22 fixed in another branch: the todo reason. */
  readonly pending?: Partial<Record<Check, string>>;
}

/** Text of a page showing the variable: React puts `<!-- -->` between adjacent text parts. */
export function variablePattern(key: string, value: string): RegExp {
  return new RegExp(`${key}=(?:<!-- -->)?${value}`);
}

export const FRAMEWORK_APPS: readonly FrameworkApp[] = [
  {
    name: 'next16-app',
    title: 'Next.js 16 (create-next-app, App Router)',
    framework: 'nextjs',
    serves: 'server',
    assetPath: /^\/_next\/static\//,
    variablePage: '/env',
    apiRoute: '/api/greeting',
    notFoundPath: '/no-such-page',
  },
  {
    name: 'next15-pages',
    title: 'Next.js 15.5 (create-next-app, Pages Router)',
    framework: 'nextjs',
    serves: 'server',
    assetPath: /^\/_next\/static\//,
    variablePage: '/env',
    apiRoute: '/api/greeting',
    notFoundPath: '/no-such-page',
  },
  {
    name: 'astro-static',
    title: 'Astro (basics template, static output)',
    framework: 'astro',
    serves: 'static',
    assetPath: /^\/_astro\//,
    variablePage: '/env/',
    apiRoute: '/api/greeting.json',
    notFoundPath: '/no-such-page/',
  },
  {
    name: 'astro-node',
    title: 'Astro (basics template, @astrojs/node standalone)',
    framework: 'astro',
    serves: 'server',
    assetPath: /^\/_astro\//,
    variablePage: '/env',
    apiRoute: '/api/greeting',
    notFoundPath: '/no-such-page',
  },
  {
    name: 'nuxt4',
    title: 'Nuxt 4 (nuxi init minimal, nitro node-server)',
    framework: 'nuxt',
    serves: 'server',
    assetPath: /^\/_nuxt\//,
    variablePage: '/env',
    apiRoute: '/api/greeting',
    notFoundPath: '/no-such-page',
  },
  {
    name: 'sveltekit-node',
    title: 'SvelteKit (sv create minimal, @sveltejs/adapter-node)',
    framework: 'sveltekit',
    serves: 'server',
    assetPath: /^\/_app\/immutable\//,
    variablePage: '/env',
    apiRoute: '/api/greeting',
    notFoundPath: '/no-such-page',
  },
  {
    name: 'react-router',
    title: 'React Router (create-react-router default template, framework mode)',
    framework: 'react-router',
    serves: 'server',
    assetPath: /^\/assets\//,
    variablePage: '/env',
    apiRoute: '/api/greeting',
    notFoundPath: '/no-such-page',
  },
  {
    name: 'vite-react-spa',
    title: 'Vite React SPA (create-vite react-ts, React Router client-side routes)',
    framework: 'vite',
    serves: 'static',
    assetPath: /^\/assets\//,
    // The SPA's variable is inlined into the bundle its index.html loads (the page at /users/42 shows it).
    variablePage: '/users/42',
    apiRoute: undefined,
    // An SPA answers every page path with index.html: a missing file is the 404 to check.
    notFoundPath: '/assets/no-such-file.js',
    deepLink: '/users/42',
  },
  {
    name: 'faust',
    title: 'Faust.js (@faustwp/core getting-started example) without a reachable WordPress',
    framework: 'faustjs',
    serves: 'server',
    assetPath: /^\/_next\/static\//,
    variablePage: '/',
    apiRoute: undefined,
    notFoundPath: '/no-such-page',
    // A WordPress address that never answers (the .invalid top-level domain never resolves).
    variables: [{ key: 'NEXT_PUBLIC_WORDPRESS_URL', value: 'https://wordpress.invalid' }],
    expectedFailure: [
      /Unable to find a GraphQL endpoint at https:\/\/wordpress\.invalid\/index\.php\?graphql/,
      /WPGraphQL may not be active, or your WordPress site is unavailable/,
    ],
  },
];

export function appRoot(app: FrameworkApp): string {
  return join(FRAMEWORK_APPS_DIR, app.name);
}

/**
 * Paths the home page links (src/href attributes, and the dynamic `import("./…")` of SvelteKit's start
 * script, which are relative to the page at `/`), as absolute paths in document order.
 */
export function linkedPaths(html: string): string[] {
  return [...html.matchAll(/(?:(?:src|href)="|import\(")(\.?\/[^"/][^"]*)"/g)].map((m) =>
    (m[1] ?? '').replace(/^\.\//, '/').replaceAll('&amp;', '&'),
  );
}
