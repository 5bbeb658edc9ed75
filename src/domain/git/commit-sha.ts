/** A git commit as the platform records and asks for one: its full 40-hex sha (SHA-1 repositories). */
export function isCommitSha(value: string): boolean {
  return /^[0-9a-f]{40}$/.test(value);
}
