/**
 * systemd unit files and EnvironmentFile= files read as systemd reads them (sections, repeated keys,
 * comments, backslash continuations, quoted values), so a test can check what a unit runs.
 */

/** One unit: its sections, each with its settings in file order (a key may repeat). */
export type UnitFile = ReadonlyMap<string, readonly (readonly [string, string])[]>;

/** Lines with their backslash continuations joined, comments and blank lines left out. */
function logicalLines(text: string): string[] {
  const lines: string[] = [];
  let pending = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#') || line.startsWith(';'))) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    lines.push(pending + line);
    pending = '';
  }
  if (pending !== '') lines.push(pending);
  return lines;
}

/** Throws on a line that is neither a section header nor `Key=value`, as systemd would warn and skip it. */
export function parseUnitFile(text: string, name: string): UnitFile {
  const sections = new Map<string, [string, string][]>();
  let current: [string, string][] | undefined;
  for (const line of logicalLines(text)) {
    const header = /^\[([A-Za-z]+)\]$/.exec(line);
    if (header) {
      current = [];
      sections.set(header[1]!, current);
      continue;
    }
    const setting = /^([A-Za-z][A-Za-z0-9]*)\s*=\s*(.*)$/.exec(line);
    if (!setting || current === undefined)
      throw new Error(`${name}: cannot read the line ${JSON.stringify(line)}`);
    current.push([setting[1]!, setting[2]!]);
  }
  return sections;
}

/** Every value of a key in a section, in order. */
export function unitValues(unit: UnitFile, section: string, key: string): string[] {
  return (unit.get(section) ?? []).filter(([k]) => k === key).map(([, value]) => value);
}

/** The last value of a key (later settings of a single-valued key win), or undefined. */
export function unitValue(unit: UnitFile, section: string, key: string): string | undefined {
  return unitValues(unit, section, key).at(-1);
}

/** Assignments of an `Environment=` value: `A=1 B=2`, each optionally in double quotes. */
export function environmentAssignments(value: string): [string, string][] {
  return [...value.matchAll(/"([^"=]+)=([^"]*)"|([^\s"=]+)=(\S*)/g)].map((match) =>
    match[1] === undefined ? [match[3]!, match[4]!] : [match[1], match[2]!],
  );
}

/**
 * The variables an EnvironmentFile= sets, and those it names in commented-out `#NAME=value` lines
 * (offered to the operator to uncomment, so they must be right too).
 */
export function parseEnvironmentFile(text: string): {
  readonly set: ReadonlyMap<string, string>;
  readonly offered: readonly string[];
} {
  const set = new Map<string, string>();
  const offered: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const commented = /^#\s*([A-Z][A-Z0-9_]*)=/.exec(line);
    if (commented) offered.push(commented[1]!);
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!assignment) throw new Error(`cannot read the environment file line ${JSON.stringify(line)}`);
    set.set(assignment[1]!, assignment[2]!.replace(/^"(.*)"$/, '$1'));
  }
  return { set, offered };
}
