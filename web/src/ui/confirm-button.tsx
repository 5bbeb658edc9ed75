/** The two-step button pages use before a change that cannot be undone. */
import { useState, type ReactNode } from 'react';

/**
 * A button for a change that cannot be undone (a deletion, a regeneration): the first press shows
 * `warning` with a confirming button and a way back, the second does it.
 */
export function ConfirmButton(props: {
  label: string;
  confirmLabel: string;
  warning: ReactNode;
  onConfirm: () => void;
  busy?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button
        type="button"
        className="danger"
        onClick={() => {
          setAsking(true);
        }}
      >
        {props.label}
      </button>
    );
  return (
    <div className="confirm" role="group" aria-label={props.label}>
      <p>{props.warning}</p>
      <button
        type="button"
        className="danger"
        disabled={props.busy}
        onClick={() => {
          props.onConfirm();
          setAsking(false);
        }}
      >
        {props.confirmLabel}
      </button>{' '}
      <button
        type="button"
        className="secondary"
        onClick={() => {
          setAsking(false);
        }}
      >
        Cancel
      </button>
    </div>
  );
}
