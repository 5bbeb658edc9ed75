/**
 * Where an Atoll build's time goes, read from its build log: each line carries the time the worker logged it,
 * and the worker logs a line as each step starts (`--- unpacking`, `--- installing`, …) and when the build
 * succeeds and goes live. A step runs from its line to the next step's line.
 */

/** A build log line as the store answers it. */
export interface TimedLine {
  readonly time: Date;
  readonly line: string;
}

/** The steps, in the order a build passes them; `marker` is the log line that starts each. */
const STEPS = [
  // From the upload request to the worker's first line: upload, storing the source, queueing, claiming.
  { name: 'upload+queue', marker: undefined },
  // Unpacking the source, detecting the project, provisioning Node.js, restoring the build cache.
  { name: 'unpack+prepare', marker: /^--- unpacking$/ },
  { name: 'install', marker: /^--- installing$/ },
  { name: 'build', marker: /^--- building$/ },
  // Putting the caches back is in here too: it runs after the artifact is written.
  { name: 'pack', marker: /^--- packaging$/ },
  // Unpacking the artifact for the deployment, starting a server app and its health check.
  { name: 'deploy', marker: /^--- deploying$/ },
  // The success transaction, then the switch of traffic.
  { name: 'go live', marker: /^build succeeded: / },
  // From the switch to the bench seeing the build end.
  { name: 'end', marker: /^deployment live / },
] as const;

export const STEP_NAMES: readonly string[] = STEPS.map((step) => step.name);

/**
 * Milliseconds per step of one build that started (upload sent) at `started` and was seen ended at `ended`;
 * a step the build skipped (a warm build's install) takes 0.
 */
export function stepTimes(lines: readonly TimedLine[], started: number, ended: number): Map<string, number> {
  const starts: { name: string; at: number }[] = [{ name: 'upload+queue', at: started }];
  for (const step of STEPS) {
    if (step.marker === undefined) continue;
    const found = lines.find((l) => step.marker.test(l.line));
    if (found) starts.push({ name: step.name, at: found.time.getTime() });
  }
  const times = new Map(STEP_NAMES.map((name) => [name, 0]));
  starts.forEach((step, index) => {
    const next = starts[index + 1]?.at ?? ended;
    times.set(step.name, Math.max(0, next - step.at));
  });
  return times;
}

/** The deployment's own timings the runtime logs: artifact unpacking and a server app's health check, in ms. */
export function deploymentTimes(lines: readonly TimedLine[]): { unpackMs: number; healthMs: number } {
  const secondsIn = (pattern: RegExp) => {
    const match = lines.map((l) => pattern.exec(l.line)).find((m) => m !== null);
    return match?.[1] === undefined ? 0 : Number(match[1]) * 1000;
  };
  return {
    unpackMs: secondsIn(/^artifact (?:unpacked|placed) in ([\d.]+) s/),
    healthMs: secondsIn(/^the app answered on port \d+ after ([\d.]+) s/),
  };
}
