/**
 * A failed build command's reason in the user's language: the framework's own error (the last
 * meaningful lines of its output, without colours, package-manager boilerplate or stack frames)
 * and, where the output shows a known cause, the fix. Pure: the executor hands in the lines it kept.
 */

/** What the executor knows of a failed command. */
export interface FailedCommand {
  /** The command as logged, e.g. `npm run build`. */
  readonly command: string;
  /** `failed with exit code 1`, `was stopped`. */
  readonly ended: string;
  /** The command's last lines of output, stdout and stderr as they came. */
  readonly output: readonly string[];
  /** The Node.js version the command ran on. */
  readonly nodeVersion: string;
}

/** Bounds of the reason: it is stored with the build and shown in one glance. */
export const FAILURE_REASON_MAX_LINES = 10;
export const FAILURE_REASON_MAX_BYTES = 2048;
const LINE_MAX_CHARS = 300;

// ECMA-48 CSI and OSC sequences (colours, cursor moves, hyperlinks) that terminals interpret.
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

/** Lines that say nothing about the failure: the package manager's and Node.js's own framing. */
const NOISE: readonly RegExp[] = [
  // npm's framing of a failed script, and where its log went.
  /^npm (?:error|ERR!) (?:code|errno|path|workspace|location|command|signal|syscall)\b/,
  /^npm (?:error|ERR!) Lifecycle script .* failed/,
  /^npm (?:error|ERR!) (?:A complete log of this run|Log files were not written|You can rerun)/,
  /^npm (?:error|ERR!) \s*\/.*\.log$/,
  /^npm (?:warn|WARN|notice|verb|info|http|timing)\b/,
  /A complete log of this run can be found in/,
  // The banner npm prints before a script (`> app@1.0.0 build`, `> next build`), not a code frame's `> 3 |`.
  /^> (?!\s*\d+\s*\|)/,
  // Yarn classic and pnpm saying that the script failed.
  /^error Command failed with exit code \d+/,
  /^info Visit https:\/\/yarnpkg\.com/,
  /\bELIFECYCLE\b/,
  /^\S*ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL\b/,
  // Stack frames and what Node.js prints around an uncaught error.
  /^\s+at .+/,
  /^\s*Stack trace:$/,
  // Next.js's digest of a prerender error: an id for its server logs.
  /^\s+digest: '\w+'$/,
  /^\s*\w+: \[Getter(?:\/Setter)?\]$/,
  /^\s*[{}[\]],?\s*$/,
  /^Node\.js v\d+\.\d+\.\d+$/,
  /^node:internal\//,
  // A worker's exit after the error it already printed.
  /Next\.js build worker exited with code/,
  // Frames and rules drawn around code (`│`, `───╯`), with nothing else on the line.
  /^[\s│|╭╮╯╰─┬┴^~]*$/,
];

/** The first line of an error as frameworks, bundlers and package managers print one. */
const ERROR_WORDS =
  /\b(?:error|errors|failed|failure|cannot|can't|could not|unable|not found|not supported|unsupported|invalid|missing)\b|[✗✘✖⨯]/i;
/** Error codes, case-sensitive: `ERR_PNPM_…`, `ENOENT`, `EBADENGINE`. */
const ERROR_CODES = /\bERR_[A-Z_]+|\bE[A-Z]{4,}\b/;
const startsError = (line: string) => ERROR_WORDS.test(line) || ERROR_CODES.test(line);

/** A known cause: the fix it names when the output shows it, else undefined. */
type KnownCause = (text: string, failed: FailedCommand) => string | undefined;

const enginesFix = (range: string | undefined, failed: FailedCommand) =>
  `Fix: set "engines": { "node": "${range ?? '<a version the packages support>'}" } in package.json: this build ran Node.js ${failed.nodeVersion || '(the default)'}, and Atoll runs the newest Node.js that engines.node allows.`;

/** `20.19+ or 22.12+` (Vite's wording) as a semver range. */
const plusRange = (text: string) =>
  text
    .split(' or ')
    .map((v) => `>=${v.replace('+', '')}`)
    .join(' || ');

const KNOWN_CAUSES: readonly KnownCause[] = [
  // Next.js: `For Next.js, Node.js version "^18.18.0 || ^19.8.0 || >= 20.0.0" is required.`
  (text, failed) => {
    const m = /Node\.js version "([^"]+)" is required/.exec(text);
    return m ? enginesFix(m[1], failed) : undefined;
  },
  // Vite: `Vite requires Node.js version 20.19+ or 22.12+.`
  (text, failed) => {
    const m = /requires Node\.js version (\d[\d.]*\+(?: or \d[\d.]*\+)*)/.exec(text);
    return m ? enginesFix(plusRange(m[1] ?? ''), failed) : undefined;
  },
  // Astro: `Node.js v18.0.0 is not supported by Astro!` then `…to a supported version: ">=18.17.1"`.
  (text, failed) => {
    if (!/Node\.js v\S+ is not supported by/.test(text)) return undefined;
    return enginesFix(/supported version: "([^"]+)"/.exec(text)?.[1], failed);
  },
  // npm's EBADENGINE (`Required: {"node":">=20"}`), Yarn's and pnpm's engine checks.
  (text, failed) => {
    if (!/EBADENGINE|ERR_PNPM_UNSUPPORTED_ENGINE|The engine "node" is incompatible/.test(text))
      return undefined;
    const range =
      /"node":\s*"([^"]+)"/.exec(text)?.[1] ??
      /Expected version "([^"]+)"/.exec(text)?.[1] ??
      /Expected version: (\S+)/.exec(text)?.[1];
    return enginesFix(range, failed);
  },
  // Faust.js checks its WordPress site (and the Faust plugin) while it builds.
  // `Unable to find a GraphQL endpoint at …`, `Could not find NEXT_PUBLIC_WORDPRESS_URL environment variable.`
  (text) =>
    /Unable to find a GraphQL endpoint|Could not find NEXT_PUBLIC_WORDPRESS_URL|WPGraphQL may not be active/.test(
      text,
    )
      ? 'Fix: set NEXT_PUBLIC_WORDPRESS_URL (a shell variable of the environment) to a WordPress site with the Faust.js plugin that the build can reach, or skip the check with `faust build --skip-health-checks`.'
      : undefined,
  // A script the build calls that package.json does not have.
  (text) => {
    const m = /Missing script: "([^"]+)"/.exec(text);
    return m ? `Fix: add a "${m[1] ?? ''}" script to package.json, or stop calling it.` : undefined;
  },
  // A bare package a bundler or Node.js cannot find: usually a dependency missing from package.json.
  (text) => {
    for (const m of text.matchAll(
      /(?:Can't resolve|Could not resolve|Cannot find (?:module|package)) ['"]((?:@[\w.-]+\/)?[\w-][\w.-]*)/g,
    ))
      if (m[1] !== undefined)
        return `Fix: add "${m[1]}" to dependencies in package.json (and its lockfile), or correct the import.`;
    return undefined;
  },
];

function clean(line: string): string {
  return line.replace(ANSI, '').replace(/\r/g, '').trimEnd();
}

function clip(line: string): string {
  return line.length > LINE_MAX_CHARS ? `${line.slice(0, LINE_MAX_CHARS - 1)}…` : line;
}

/** The lines worth reading: from the first line of the error on, at most FAILURE_REASON_MAX_LINES. */
export function meaningfulLines(output: readonly string[]): string[] {
  const lines = output
    .map(clean)
    .filter((line) => line.trim() !== '' && !NOISE.some((noise) => noise.test(line)))
    // npm's own errors (a 404 package, a conflict) are the message once their prefix is gone.
    .map((line) => clip(line.replace(/^npm (?:error|ERR!) ?/, '')))
    .filter((line) => line.trim() !== '');
  const start = lines.findIndex(startsError);
  const from = start === -1 ? Math.max(0, lines.length - FAILURE_REASON_MAX_LINES) : start;
  return lines.slice(from, from + FAILURE_REASON_MAX_LINES);
}

/** The fix for a known cause found in the output, or undefined. */
export function knownFix(failed: FailedCommand): string | undefined {
  const text = failed.output.map(clean).join('\n');
  for (const cause of KNOWN_CAUSES) {
    const fix = cause(text, failed);
    if (fix !== undefined) return fix;
  }
  return undefined;
}

/**
 * The reason stored as the build's failure message: `<command> <ended>:`, the framework's own
 * error, and the fix when the cause is known; within FAILURE_REASON_MAX_BYTES.
 */
export function describeFailedCommand(failed: FailedCommand): string {
  const lines = meaningfulLines(failed.output);
  const fix = knownFix(failed);
  const head = `${failed.command} ${failed.ended}${lines.length > 0 ? ':' : ''}`;
  const tail = fix === undefined ? [] : [fix];
  const budget = FAILURE_REASON_MAX_BYTES - Buffer.byteLength([head, ...tail].join('\n')) - 2;
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    const size = Buffer.byteLength(line) + 1;
    if (used + size > budget) break;
    kept.push(line);
    used += size;
  }
  return [head, ...kept, ...tail].join('\n');
}

/** Frameworks whose app only exists once built: their build command and the folder it writes. */
const BUILT_FRAMEWORKS: Readonly<
  Record<string, { readonly name: string; readonly command: string; readonly output: string }>
> = {
  nextjs: { name: 'Next.js', command: 'next build', output: '.next' },
  nuxt: { name: 'Nuxt', command: 'nuxt build', output: '.output' },
  astro: { name: 'Astro', command: 'astro build', output: 'dist' },
  sveltekit: { name: 'SvelteKit', command: 'vite build', output: 'build' },
  remix: { name: 'Remix', command: 'remix build', output: 'build' },
  gatsby: { name: 'Gatsby', command: 'gatsby build', output: 'public' },
};

/**
 * Why a project without a build script cannot be deployed, or undefined: a framework app that
 * was not uploaded built (its output folder is missing) needs its build command as the `build`
 * script, else the platform would publish the sources.
 */
export function missingBuildScriptReason(
  framework: string,
  uploaded: (relativePath: string) => boolean,
): string | undefined {
  const built = BUILT_FRAMEWORKS[framework];
  if (built === undefined || uploaded(built.output)) return undefined;
  return `package.json has no "build" script, and a ${built.name} app must be built before it is deployed. Fix: add "build": "${built.command}" to the scripts of package.json (or name another script in the ATLAS_BUILD_SCRIPT shell variable).`;
}
