/**
 * A summary of a V8 `.cpuprofile` (what `node --cpu-prof` writes): self time by function and by
 * area (the package, node's internals, atoll's src/ folders, GC, idle), as shares of the samples.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
  };
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface ProfileSummary {
  readonly totalMs: number;
  /** Share of the busy (non-idle) time. */
  readonly functions: readonly { name: string; where: string; ms: number; share: number }[];
  readonly areas: readonly { area: string; ms: number; share: number }[];
  readonly idleMs: number;
}

function areaOf(url: string, functionName: string): string {
  if (url === '') {
    if (functionName === '(garbage collector)') return 'GC';
    if (functionName === '(idle)') return 'idle';
    if (functionName === '(program)') return '(program: native, outside JS)';
    return `native: ${functionName || '(anonymous)'}`;
  }
  if (url.startsWith('node:')) return `node: ${url.slice(5).split('/')[0] ?? url}`;
  if (url.startsWith('wasm://')) return "wasm (undici's llhttp parser; module lexers at start-up)";
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return `package: ${rest[0]?.startsWith('@') === true ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? '?')}`;
  }
  const src = url.indexOf('/src/');
  if (src !== -1) return `atoll: ${url.slice(src + 1)}`;
  const bench = url.indexOf('/bench/');
  if (bench !== -1) return `bench: ${url.slice(bench + 1)}`;
  return url;
}

function shortWhere(url: string, line: number): string {
  if (url === '') return '';
  const modules = url.lastIndexOf('/node_modules/');
  const short =
    modules !== -1
      ? url.slice(modules + '/node_modules/'.length)
      : url.includes('/src/')
        ? url.slice(url.indexOf('/src/') + 1)
        : url.replace(/^file:\/\//, '');
  // tsx-compiled files report line 0 for every function: their line says nothing.
  return line === 0 ? short : `${short}:${String(line + 1)}`;
}

export function summarizeProfile(file: string, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time before sample i; the time a sample stands for is the next delta.
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    const us = profile.timeDeltas[i + 1] ?? 0;
    if (id !== undefined) selfUs.set(id, (selfUs.get(id) ?? 0) + us);
  }
  const functions = new Map<string, { name: string; where: string; us: number }>();
  const areas = new Map<string, number>();
  let totalUs = 0;
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    totalUs += us;
    const area = areaOf(frame.url, frame.functionName);
    if (area === 'idle') {
      idleUs += us;
      continue;
    }
    areas.set(area, (areas.get(area) ?? 0) + us);
    const where = shortWhere(frame.url, frame.lineNumber);
    const key = `${frame.functionName}@${where}`;
    const entry = functions.get(key) ?? { name: frame.functionName || '(anonymous)', where, us: 0 };
    entry.us += us;
    functions.set(key, entry);
  }
  const busyUs = Math.max(1, totalUs - idleUs);
  return {
    totalMs: totalUs / 1000,
    idleMs: idleUs / 1000,
    functions: [...functions.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((f) => ({ name: f.name, where: f.where, ms: f.us / 1000, share: f.us / busyUs })),
    areas: [...areas]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([area, us]) => ({ area, ms: us / 1000, share: us / busyUs })),
  };
}
