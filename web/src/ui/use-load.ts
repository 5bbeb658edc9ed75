/** The two hooks pages talk to the API with: useLoad reads (and polls), useAction changes. */
import { useCallback, useEffect, useRef, useState } from 'react';
import { asApiError, type ApiError } from '../../../src/client/api-client.js';

/** How often a page waiting for the platform asks again (a build, a deployment, a domain check). */
export const POLL_MS = 1_000;

export interface Loaded<T> {
  /** Undefined until the first answer. */
  readonly data: T | undefined;
  /** The last failure, cleared by the next success. */
  readonly error: ApiError | undefined;
  /** Asks again now (after a change the page made). */
  readonly reload: () => void;
}

/**
 * Loads what a page shows, again whenever `load` changes (wrap it in useCallback) and, with
 * `pollMs`, every `pollMs` while the page is open: a state the platform changes (a build, a domain
 * check) shows without a reload. An answer that arrives after the page moved on is dropped.
 */
export function useLoad<T>(load: () => Promise<T>, pollMs?: number): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<ApiError>();
  const generation = useRef(0);

  const reload = useCallback(() => {
    const mine = ++generation.current;
    load().then(
      (value) => {
        if (mine !== generation.current) return;
        setData(value);
        setError(undefined);
      },
      (failure: unknown) => {
        if (mine === generation.current) setError(asApiError(failure));
      },
    );
  }, [load]);

  useEffect(() => {
    reload();
    if (pollMs === undefined) return;
    const timer = setInterval(reload, pollMs);
    return () => {
      clearInterval(timer);
      generation.current++;
    };
  }, [reload, pollMs]);

  return { data, error, reload };
}

/**
 * Runs a change (a POST, a PATCH) for a form or a button: `busy` while it runs, the API's refusal
 * in `error` (its field violations shown next to the fields), `onDone` with the answer.
 */
export function useAction<A extends unknown[], T>(
  action: (...args: A) => Promise<T>,
  onDone?: (answer: T) => void,
): { run: (...args: A) => void; busy: boolean; error: ApiError | undefined; clear: () => void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError>();
  const run = (...args: A) => {
    setBusy(true);
    setError(undefined);
    action(...args).then(
      (answer) => {
        setBusy(false);
        onDone?.(answer);
      },
      (failure: unknown) => {
        setBusy(false);
        setError(asApiError(failure));
      },
    );
  };
  return {
    run,
    busy,
    error,
    clear: () => {
      setError(undefined);
    },
  };
}
