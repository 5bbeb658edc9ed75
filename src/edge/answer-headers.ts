/** An app's answer's header fields, read once from undici's raw name, value… buffers for the edge's two uses. */
import { util as undiciUtil } from 'undici';
import { HOP_BY_HOP_FIELDS, hopByHopFields } from '../domain/hosting/hop-by-hop.js';

export interface AnswerHeaders {
  /** Every field by its lower-case name, repeated ones as a list: what undici's parseHeaders gives. */
  readonly headers: Record<string, string | string[]>;
  /**
   * The end-to-end fields as res.writeHead's flat list, in the order the app sent them (a repeated field
   * stays several lines): no hop-by-hop field, none the Connection field names, and not `withheld`.
   */
  readonly list: string[];
}

/**
 * Reads the fields in one pass, instead of parsing them into an object and then walking that object for the
 * visitor's list. The proxy measured no faster for it at once, within the noise (docs/benchmarks.md, "one pass
 * over an answer's fields"); it is kept as the one place both uses are read from.
 */
export function readAnswerHeaders(raw: readonly Buffer[], withheld: string): AnswerHeaders {
  const headers: Record<string, string | string[]> = {};
  const list: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = undiciUtil.headerNameToString(raw[i] as Buffer);
    const value = (raw[i + 1] as Buffer).toString('latin1');
    const seen = headers[name];
    // An inherited name (`constructor`, `__proto__`) is a new field, as in undici's parseHeaders.
    if (seen === undefined || !Object.hasOwn(headers, name)) {
      if (name === '__proto__')
        Object.defineProperty(headers, name, { value, enumerable: true, configurable: true, writable: true });
      else headers[name] = value;
    } else if (typeof seen === 'string') headers[name] = [seen, value];
    else seen.push(value);
    if (!HOP_BY_HOP_FIELDS.has(name) && name !== withheld) list.push(name, value);
  }
  // The Connection field may come after the fields it names: those are taken out afterwards (rare).
  const skip = hopByHopFields(headers.connection);
  return { headers, list: skip === HOP_BY_HOP_FIELDS ? list : withoutFields(list, skip) };
}

function withoutFields(list: readonly string[], skip: ReadonlySet<string>): string[] {
  const kept: string[] = [];
  for (let i = 0; i + 1 < list.length; i += 2) {
    const name = list[i] as string;
    if (!skip.has(name)) kept.push(name, list[i + 1] as string);
  }
  return kept;
}
