/** How pages show what the API refused or failed to load: next to the field named, or as an alert. */
import { Alert } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { asApiError, type ApiError } from '../../../src/client/api-client.js';

/**
 * The API's rule broken by `field`, for a Mantine input's `error` prop (which shows it under the field
 * and marks the field invalid); undefined when the field broke none.
 */
export function fieldError(error: ApiError | undefined, field: string): string | undefined {
  return error?.violationOf(field);
}

/** The API's rule broken by `field`, shown under a control that has no `error` prop of its own. */
export function FieldError(props: { error: ApiError | undefined; field: string; id?: string }) {
  const message = props.error?.violationOf(props.field);
  if (message === undefined) return null;
  return (
    <p id={props.id} className="field-error">
      {message}
    </p>
  );
}

/**
 * A refusal that no field of the form shows: the message as an alert. `fields` are the ones the form
 * shows next to their controls.
 */
export function FormError(props: { error: ApiError | undefined; fields?: readonly string[] }) {
  const { error } = props;
  if (error === undefined) return null;
  const shown = new Set(props.fields ?? []);
  if (error.fieldViolations.some((v) => shown.has(v.field))) return null;
  return <Problem message={error.message} />;
}

/** What went wrong loading a page's data (an ApiError, a network failure), as an alert. */
export function LoadError(props: { error: unknown }) {
  if (props.error === undefined || props.error === null) return null;
  return <Problem message={asApiError(props.error).message} />;
}

function Problem(props: { message: string }) {
  return (
    <Alert
      role="alert"
      color="red"
      variant="light"
      icon={<IconAlertTriangle size={18} aria-hidden />}
      my="sm"
    >
      {props.message}
    </Alert>
  );
}
