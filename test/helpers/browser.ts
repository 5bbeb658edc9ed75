/** Headless Debian Chromium and the portal sign-in, for the portal's browser tests. */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it). */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Headless Chromium for the portal's browser tests. The flags keep it off the network it
 * would otherwise call at start (this machine's closed network refuses those connections).
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** The portal password of the users TestApi.createTenant and addMember make. */
export const PORTAL_PASSWORD = 'correct horse battery staple';

/** Fills in and sends the portal's sign-in form, which the page shows. */
export async function signIn(
  page: Page,
  email = 'owner@acme.test',
  password = PORTAL_PASSWORD,
): Promise<void> {
  await page.getByLabel('Email address', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** axe-core's browser build, injected into pages to check them (issue 24: no serious or critical violation). */
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let axeSource: string | undefined;

/**
 * Waits until every animation and CSS transition on the page that ends has ended (a spinner's endless
 * one is left running): what a screenshot or a contrast check should see is the page at rest.
 */
export async function settleAnimations(page: Page): Promise<void> {
  await page.evaluate(
    `Promise.allSettled(document.getAnimations()
      .filter((a) => a.effect?.getComputedTiming().endTime !== Infinity)
      .map((a) => a.finished))`,
  );
}

/**
 * The serious and critical accessibility violations axe-core finds on the page at rest, one line
 * each (`rule: help — targets`); empty when there is none.
 *
 * A control's fade (a tooltip opening under the pointer, a notification sliding in) can start while
 * axe runs, and axe then measures its text against a background that is still almost transparent:
 * "#ffffff on #fbfbfb" for a dark tooltip one frame into its fade. So a page with violations is let
 * settle and checked again, and only what is still wrong at rest is reported; a real violation stays.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  await settleAnimations(page);
  const first = await axeViolations(page);
  if (first.length === 0) return first;
  await settleAnimations(page);
  return axeViolations(page);
}

async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated over the devtools protocol, which the portal's CSP (script-src 'self') does not govern;
  // a <script> tag would be refused, and bypassing the CSP would hide the CSP faults tests look for.
  axeSource ??= await readFile(AXE, 'utf8');
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (options: object) => Promise<AxeResults> } }).axe;
    const results = await axe.run({ resultTypes: ['violations'] });
    return results.violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) => `${v.id}: ${v.help} — ${v.nodes.map((n) => `${n.target.join(' ')}${contrastOf(n)}`).join(', ')}`,
    );
}

/** For a contrast violation, the colours and ratio axe measured: what to change. */
function contrastOf(node: AxeNode): string {
  const data = node.any[0]?.data;
  if (data === undefined || data === null || typeof data !== 'object' || !('contrastRatio' in data))
    return '';
  const { fgColor, bgColor, contrastRatio } = data as Record<string, unknown>;
  return ` (${String(fgColor)} on ${String(bgColor)}: ${String(contrastRatio)})`;
}

interface AxeResults {
  readonly violations: readonly {
    readonly id: string;
    readonly impact: string | null;
    readonly help: string;
    readonly nodes: readonly AxeNode[];
  }[];
}

interface AxeNode {
  readonly target: readonly string[];
  readonly any: readonly { readonly data: unknown }[];
}

/**
 * Collects what the page's console reports as refused by the Content Security Policy or thrown and not
 * caught: a portal page that needs an inline style or script, or that crashes, is a defect.
 */
export function watchForPageFaults(page: Page): string[] {
  const faults: string[] = [];
  // The browser's own report of each refusal names the script and line that asked for it.
  void page.addInitScript(`
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error('Refused by the CSP (' + event.violatedDirective + ') at ' + event.sourceFile + ':' +
        event.lineNumber + ':' + event.columnNumber + ': ' + event.sample);
    });
  `);
  page.on('console', (message) => {
    if (message.type() === 'error' && /^Refused by the CSP/.test(message.text()))
      faults.push(`${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => {
    faults.push(`${page.url()}: uncaught ${error.message}`);
  });
  return faults;
}

/** How many pixels the page is wider than the window (0 or less: nothing scrolls sideways). */
export async function horizontalOverflow(page: Page): Promise<number> {
  return Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
}
