/** google.longrunning.Operation as the public service answers it (docs/api.md "Long-running operations"). */

export const UPDATE_ENVIRONMENT_METADATA_TYPE =
  'type.googleapis.com/wpengine.js.apps.v1.UpdateEnvironmentMetadata';

/** google.rpc.Status as stored on a finished operation. */
export interface StatusBody {
  readonly code: number;
  readonly message: string;
  readonly details: readonly Record<string, unknown>[];
}

/** What a finished operation answers as `response`, computed when it is read. */
export type OperationResultKind = 'environment' | 'domainMappings';
