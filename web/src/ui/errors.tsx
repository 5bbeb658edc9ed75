/** How pages show what the API refused or failed to load: next to the field named, or as an alert. */
import type { ApiError } from '../../../src/client/api-client.js';

/** The API's rule broken by `field`, shown under that field (give the field `aria-describedby={id}`). */
export function FieldError(props: { error: ApiError | undefined; field: string; id?: string }) {
  const message = props.error?.violationOf(props.field);
  if (message === undefined) return null;
  return (
    <p id={props.id} className="error">
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
  return (
    <p role="alert" className="error">
      {error.message}
    </p>
  );
}

/** What went wrong loading a page's data, as an alert. */
export function LoadError(props: { error: ApiError | undefined }) {
  if (props.error === undefined) return null;
  return (
    <p role="alert" className="error">
      {props.error.message}
    </p>
  );
}
