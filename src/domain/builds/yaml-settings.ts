/**
 * The top-level settings of a package manager's YAML file (.yarnrc.yml, pnpm-workspace.yaml): plain
 * values and lists of plain values, which is all a build needs of them. Not a YAML parser: nested
 * maps, anchors and multi-line strings are skipped, never guessed at.
 */

export type YamlSetting = string | string[];

/** A plain scalar without its quotes and trailing comment. */
function scalar(text: string): string {
  const value = text.trim();
  const quoted = /^(["'])(.*)\1$/.exec(value);
  if (quoted?.[2] !== undefined) return quoted[2];
  return value.replace(/\s+#.*$/, '').trim();
}

/** A flow list (`[a, 'b']`) split on its commas (patterns and paths hold none). */
function flowList(text: string): string[] | undefined {
  const match = /^\[(.*)\]\s*(#.*)?$/.exec(text.trim());
  if (match === null) return undefined;
  return (match[1] ?? '')
    .split(',')
    .map(scalar)
    .filter((v) => v !== '');
}

/** Top-level keys with a plain value or a list of plain values; anything else is left out. */
export function readYamlSettings(text: string): Map<string, YamlSetting> {
  const settings = new Map<string, YamlSetting>();
  let listKey: string | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\s+$/, '');
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    const item = /^\s*-\s+(.*)$/.exec(line);
    if (listKey !== undefined && item?.[1] !== undefined) {
      const list = settings.get(listKey);
      if (Array.isArray(list)) list.push(scalar(item[1]));
      continue;
    }
    if (/^\s/.test(line)) {
      // A nested map's line: its key is not one of these plain settings.
      if (listKey !== undefined) settings.delete(listKey);
      listKey = undefined;
      continue;
    }
    listKey = undefined;
    const entry = /^(["']?)([A-Za-z0-9_.@/-]+)\1\s*:(?:\s+(.*))?$/.exec(line);
    if (entry?.[2] === undefined) continue;
    const value = entry[3] ?? '';
    if (value === '' || value.startsWith('#')) {
      listKey = entry[2];
      settings.set(listKey, []);
      continue;
    }
    settings.set(entry[2], flowList(value) ?? scalar(value));
  }
  return settings;
}
