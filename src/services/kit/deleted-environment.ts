/**
 * For writes of figures about an environment (usage minutes, health checks) that may race its
 * deletion: the row's foreign key then refuses it, which is no fault (the figures went with the
 * environment). Any other error is thrown again.
 */
export function ignoreDeletedEnvironment(error: unknown): void {
  if (!/foreign key/i.test(String(error))) throw error;
}
