/** How pages run a change (a POST, a PATCH): TanStack Query's mutation, its failure read as an ApiError. */
import { useMutation } from '@tanstack/react-query';
import { asApiError, type ApiError } from '../../../src/client/api-client.js';

export interface Action<A extends unknown[]> {
  readonly run: (...args: A) => void;
  readonly busy: boolean;
  /** The API's refusal, whose field violations a form shows next to its fields. */
  readonly error: ApiError | undefined;
  readonly clear: () => void;
}

/**
 * Runs a change for a form or a button: `busy` while it runs, the API's refusal in `error`, `onDone`
 * with the answer.
 */
export function useAction<A extends unknown[], T>(
  action: (...args: A) => Promise<T>,
  onDone?: (answer: T) => void,
): Action<A> {
  const mutation = useMutation({
    mutationFn: (args: A) => action(...args),
    onSuccess: (answer) => {
      onDone?.(answer);
    },
  });
  return {
    run: (...args: A) => {
      mutation.mutate(args);
    },
    busy: mutation.isPending,
    error: mutation.error === null ? undefined : asApiError(mutation.error),
    clear: mutation.reset,
  };
}
