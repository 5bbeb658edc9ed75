/** Resource names of the hosting API (AIP-122): `accounts/{a}/apps/{app}/environments/{env}/…`. */

export const NO_BUILD = 'no_build';

export function accountName(account: string): string {
  return `accounts/${account}`;
}

export function appName(account: string, app: string): string {
  return `accounts/${account}/apps/${app}`;
}

export function environmentName(account: string, app: string, environmentId: string): string {
  return `${appName(account, app)}/environments/${environmentId}`;
}

export function operationName(
  account: string,
  app: string,
  environmentId: string,
  operationId: string,
): string {
  return `${environmentName(account, app, environmentId)}/operations/${operationId}`;
}

export function buildName(account: string, app: string, environmentId: string, buildId: string): string {
  return `${environmentName(account, app, environmentId)}/builds/${buildId}`;
}

export function credentialName(credentialId: string): string {
  return `users/me/credentials/${credentialId}`;
}

export function domainMappingName(
  account: string,
  app: string,
  environmentId: string,
  domain: string,
): string {
  return `${environmentName(account, app, environmentId)}/domainMappings/${domain}`;
}
