/**
 * The verdict lines every benchmark prints under "targets:", and a TARGET MISSED line per missed
 * target, which the benchmark docs tell readers to grep for.
 */
export interface TargetVerdicts {
  /** One line per target judged: met or MISSED, and what. */
  readonly verdicts: string[];
  /** A TARGET MISSED line per missed target. */
  readonly missed: string[];
  readonly judge: (met: boolean, what: string) => void;
  /** The "targets:" block: the verdicts, then the misses and an INVALID RUN line per problem. */
  readonly block: (invalid: readonly string[]) => string[];
}

export function targetVerdicts(): TargetVerdicts {
  const verdicts: string[] = [];
  const missed: string[] = [];
  return {
    verdicts,
    missed,
    judge: (met, what) => {
      verdicts.push(`  ${met ? 'met   ' : 'MISSED'}  ${what}`);
      if (!met) missed.push(`TARGET MISSED: ${what}`);
    },
    block: (invalid) => [
      'targets:',
      ...verdicts,
      '',
      ...missed,
      ...invalid.map((line) => `INVALID RUN: ${line}`),
    ],
  };
}
