/**
 * Strings no JSON body may hold (NUL, lone surrogates), checked once for every body before any route sees
 * it.
 */
import type { FieldViolation } from '../domain/error-catalogue.js';

const NUL = '\u0000';
/** A surrogate code unit without its pair: JSON can escape one (`"\ud800"`), UTF-8 cannot encode it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Where a value sits in the body, as a chain to its parent: no copying however deep it is. */
interface Place {
  readonly parent: Place | undefined;
  readonly key: string | number;
}

/** `recipients[0].name` for the place of `name` in the first recipient. */
function fieldOf(place: Place | undefined): string {
  const keys: (string | number)[] = [];
  for (let at = place; at !== undefined; at = at.parent) keys.push(at.key);
  return keys
    .reverse()
    .reduce<string>(
      (field, key) => (typeof key === 'number' ? `${field}[${key}]` : field === '' ? key : `${field}.${key}`),
      '',
    );
}

/**
 * The strings of a parsed JSON body that no field may hold, whatever its own rules: U+0000,
 * which PostgreSQL refuses in text and jsonb, and lone surrogates, which are not characters and
 * which jsonb refuses too. Found by the fuzz test of issue 20 (500s from `"email": "a\u0000b"`
 * and `"name": "\ud800"`); checked once here for every JSON body, before any route sees it.
 */
export function textViolations(value: unknown): FieldViolation[] {
  const violations: FieldViolation[] = [];
  // A stack, not recursion: a 1 MiB body can nest 500,000 arrays deep. Children are pushed last
  // first, so that violations come in the order of the body.
  const stack: [unknown, Place | undefined][] = [[value, undefined]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, place] = next;
    if (typeof node === 'string') {
      const field = fieldOf(place) || 'body';
      if (node.includes(NUL))
        violations.push({ field, description: 'must not contain U+0000 (NUL)', code: 'invalid_characters' });
      else if (LONE_SURROGATE.test(node))
        violations.push({
          field,
          description:
            'must be Unicode text: it holds a lone surrogate (\\ud800 to \\udfff without its pair)',
          code: 'invalid_characters',
        });
    } else if (Array.isArray(node)) {
      for (let index = node.length - 1; index >= 0; index--)
        stack.push([node[index], { parent: place, key: index }]);
    } else if (typeof node === 'object' && node !== null) {
      for (const [key, item] of Object.entries(node).reverse())
        stack.push([item, { parent: place, key }], [key, place]);
    }
  }
  return violations;
}
