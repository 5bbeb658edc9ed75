/**
 * Shell variables as the editor holds them between reading an environment and saving it, and the
 * rules that keep a stored secret across that round trip (docs/api.md "Secret shell variables and the
 * mask round trip"). Pure, so it is tested on its own (variable-drafts.test.ts).
 */
import { formatDotenv, type DotenvEntry } from './dotenv.js';

/** What the API answers instead of a secret's value; sent back unchanged, it keeps the stored value. */
export const MASK = '********';

/** A shell variable in the editor. */
export interface VariableDraft {
  readonly key: string;
  readonly value: string;
  readonly secret: boolean;
  /**
   * The key under which the API holds a secret value for this row (read back masked), so that the
   * row can be put back to it after its value was being replaced.
   */
  readonly stored?: string;
}

/** A shell variable as the API takes it. */
export interface ShellVariable {
  readonly key: string;
  readonly value: string;
  readonly secret: boolean;
}

/** The editor's rows for an environment's variables as the API answered them. */
export function draftVariables(
  variables: readonly { key: string; value: string; secret?: boolean }[],
): VariableDraft[] {
  return variables.map((v) =>
    v.secret === true && v.value === MASK
      ? { key: v.key, value: v.value, secret: true, stored: v.key }
      : { key: v.key, value: v.value, secret: v.secret === true },
  );
}

/** The rows as the API takes them: a stored secret left alone is sent masked, which keeps it. */
export function shellVariables(drafts: readonly VariableDraft[]): ShellVariable[] {
  return drafts.map((d) => ({ key: d.key, value: d.value, secret: d.secret }));
}

/**
 * Whether the row still stands for its stored secret untouched: sent as it is, the API keeps the value.
 * Its name and value are then locked until the value is replaced (a renamed secret needs its value again).
 */
export function isStoredSecret(draft: VariableDraft): boolean {
  return draft.stored !== undefined && draft.secret && draft.value === MASK && draft.key === draft.stored;
}

/** The row put back to its stored secret (after "Replace value" was pressed by mistake). */
export function keepStored(draft: VariableDraft): VariableDraft {
  return draft.stored === undefined ? draft : { ...draft, key: draft.stored, value: MASK, secret: true };
}

/** The rows as `.env` text for bulk editing; a secret's value is written as the mask, never in clear. */
export function dotenvOfDrafts(drafts: readonly VariableDraft[]): string {
  const entries = drafts
    .filter((d) => d.key !== '')
    .map((d): DotenvEntry => ({ key: d.key, value: d.secret ? MASK : d.value }));
  return entries.length === 0 ? '' : `${formatDotenv(entries)}\n`;
}

/**
 * `.env` entries applied to the rows, matched by key: a row found takes the entry's value, except a
 * secret given the mask, which keeps its own (stored or newly typed); a row stays secret or plain as
 * it was. A new key is a plain variable. `replace` (bulk edit of the whole list) drops rows whose key
 * the text no longer has and orders rows as the text does; otherwise (a pasted file) rows are added
 * and updated, never removed, and empty rows make way.
 */
export function applyDotenv(
  drafts: readonly VariableDraft[],
  entries: readonly DotenvEntry[],
  replace: boolean,
): VariableDraft[] {
  const merged = (entry: DotenvEntry): VariableDraft => {
    const row = drafts.find((d) => d.key === entry.key);
    if (row === undefined) return { key: entry.key, value: entry.value, secret: false };
    if (row.secret && entry.value === MASK) return row;
    return { ...row, value: entry.value };
  };
  if (replace) return entries.map(merged);
  const byKey = new Map(entries.map((e) => [e.key, e]));
  const kept = drafts
    .filter((d) => d.key !== '' || d.value !== '')
    .map((d) => {
      const entry = byKey.get(d.key);
      return entry === undefined ? d : merged(entry);
    });
  const added = entries.filter((e) => !drafts.some((d) => d.key === e.key)).map(merged);
  return [...kept, ...added];
}
