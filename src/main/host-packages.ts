/**
 * Before `atoll serve` starts: finds which of the commands the sandbox and builds need are missing,
 * installs their Debian/Ubuntu packages with apt-get when it can (domain/host-packages.ts decides),
 * and otherwise says what to run. The one place that changes the machine's packages.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import {
  aptInstallArgs,
  HOST_COMMANDS,
  installCommandLine,
  packagesFor,
  planHostSetup,
  type HostFacts,
  type HostPolicy,
} from '../domain/host-packages.js';

/** Runs a program with an argv array (never a shell) and resolves with its exit code; output goes to the operator. */
export type ProcessRunner = (
  file: string,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
) => Promise<number | null>;

/** The real runner: apt-get's progress on the platform's stderr (its stdout carries the JSON log). */
export const processRunner: ProcessRunner = (file, args, env) =>
  new Promise((resolve) => {
    const child = spawn(file, args, { env, stdio: ['ignore', 2, 2] });
    child.once('error', () => {
      resolve(null);
    });
    child.once('exit', (code) => {
      resolve(code);
    });
  });

/** What the machine offers: where to look for commands, who we are, how to run programs. */
export interface HostProbe {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly isRoot: boolean;
  readonly run: ProcessRunner;
}

/** The real machine, as the platform process sees it. */
export function hostProbe(): HostProbe {
  return { env: process.env, isRoot: process.getuid?.() === 0, run: processRunner };
}

/** Whether `command` is an executable file on this PATH (how spawn will find it). */
export function onPath(command: string, env: HostProbe['env']): boolean {
  return (env.PATH ?? '/usr/local/bin:/usr/bin:/bin')
    .split(delimiter)
    .filter((folder) => folder !== '')
    .some((folder) => {
      try {
        accessSync(join(folder, command), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}

/** The commands of HOST_COMMANDS this machine lacks. */
export function missingHostCommands(env: HostProbe['env']): string[] {
  return HOST_COMMANDS.filter((entry) => !onPath(entry.command, env)).map((entry) => entry.command);
}

function factsOf(probe: HostProbe): HostFacts {
  return {
    missingCommands: missingHostCommands(probe.env),
    isRoot: probe.isRoot,
    hasAptGet: onPath('apt-get', probe.env),
  };
}

export type HostSetupOutcome =
  | { readonly kind: 'ready'; readonly installed: readonly string[] }
  | { readonly kind: 'unsafe'; readonly problem: string }
  | { readonly kind: 'refuse'; readonly problem: string; readonly fix: string };

/**
 * Makes the machine ready for the sandbox, or says why it is not. `say` gets one line per step
 * for the operator: what is missing, what is installed.
 */
export async function prepareHost(
  probe: HostProbe,
  policy: HostPolicy,
  say: (line: string) => void,
): Promise<HostSetupOutcome> {
  const facts = factsOf(probe);
  const plan = planHostSetup(facts, policy);
  if (plan.kind !== 'install') return plan.kind === 'ready' ? { kind: 'ready', installed: [] } : plan;

  const required = packagesFor(facts.missingCommands);
  say(
    `atoll: the build sandbox needs ${facts.missingCommands.join(', ')}: installing ${plan.packages.join(' ')} with apt-get`,
  );
  // No prompt, no debconf dialog: nobody answers on a server's start.
  const env = { ...probe.env, DEBIAN_FRONTEND: 'noninteractive' };
  const fix = installCommandLine(required, true);
  // A fresh machine's package lists may be empty or stale: read them first, as anyone would by hand.
  const updated = await probe.run('apt-get', ['update'], env);
  if (updated !== 0)
    return { kind: 'refuse', problem: `apt-get update failed (exit ${String(updated)})`, fix };
  const installed = await probe.run('apt-get', aptInstallArgs(plan.packages), env);
  if (installed !== 0)
    return {
      kind: 'refuse',
      problem: `apt-get install ${plan.packages.join(' ')} failed (exit ${String(installed)})`,
      fix,
    };
  const stillMissing = missingHostCommands(probe.env);
  if (stillMissing.length > 0)
    return {
      kind: 'refuse',
      problem: `still missing ${stillMissing.join(', ')} after installing ${plan.packages.join(' ')}`,
      fix: installCommandLine(packagesFor(stillMissing), true),
    };
  say(`atoll: installed ${plan.packages.join(' ')}`);
  return { kind: 'ready', installed: plan.packages };
}
