import { lookup } from 'node:dns/promises';
import { isPrivateAddress } from '../../src/domain/address-rules.js';

/** The package registries the fixtures' builds install from (npm and pnpm, Yarn classic). */
const REGISTRIES = ['registry.npmjs.org', 'registry.yarnpkg.com'];

let allowance: Promise<string> | undefined;

/**
 * ATOLL_SANDBOX_ALLOW_NETWORKS for the tests' builds: the registries' addresses, port 443, where
 * they are not public (a machine that reaches the internet through an egress proxy on a
 * reserved address, as an operator would allow it); '' where they are public, which the
 * sandbox's firewall lets through anyway.
 */
export function registryAllowance(): Promise<string> {
  allowance ??= Promise.all(REGISTRIES.map((host) => lookup(host, { all: true }).catch(() => []))).then(
    (answers) => {
      const entries = answers
        .flat()
        .filter((answer) => isPrivateAddress(answer.address))
        .map((answer) => (answer.family === 6 ? `[${answer.address}]:443` : `${answer.address}:443`));
      return [...new Set(entries)].join(',');
    },
  );
  return allowance;
}
