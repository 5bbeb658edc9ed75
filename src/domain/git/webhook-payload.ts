/**
 * Reading the JSON bodies git hosts send, whose fields may be absent or of another type: each reader
 * answers an empty value instead, so a parser states only what it looks for. Pure.
 */
export type Json = Record<string, unknown>;

export const object = (value: unknown): Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};

export const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A commit message's first line, bounded as builds record it. */
export function firstLine(message: string): string {
  return message.split('\n')[0]?.trim().slice(0, 512) ?? '';
}

/** `Name <email>` of a commit's author object (GitHub, Gitea, GitLab shapes). */
export function authorOf(value: unknown): string {
  const author = object(value);
  const name = text(author.name) || text(author.username);
  const email = text(author.email);
  return (email === '' ? name : `${name} <${email}>`).slice(0, 256);
}

/** A head commit whose message asks for no build (the convention every CI honours). */
export function skipsDeploy(message: string): boolean {
  return /\[(skip ci|ci skip|skip deploy)\]/i.test(message);
}
