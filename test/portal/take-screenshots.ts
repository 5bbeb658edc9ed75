import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pngsInto, portalJourney } from './journey.js';

/**
 * `npm run docs:screenshots`: the journey of test/portal/journey.test.ts, its pictures saved into
 * docs/portal/ (or the folder given) for docs/portal.md. It needs the built portal (npm run build).
 */
const out = process.argv[2] ?? new URL('../../docs/portal', import.meta.url).pathname;
await mkdir(out, { recursive: true });
const work = await mkdtemp(join(tmpdir(), 'atoll-screenshots-'));
try {
  const facts = await portalJourney(work, pngsInto(out));
  console.log(`${String(facts.shots.length)} pages shot into ${out}: ${facts.shots.join(', ')}`);
  for (const line of [...facts.accessibility, ...facts.faults]) console.log(`  problem: ${line}`);
} finally {
  await rm(work, { recursive: true, force: true });
}
