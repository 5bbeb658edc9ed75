/** The profile's password change form. */
import { useState, type SyntheticEvent } from 'react';
import { usePortal } from '../portal/portal-context.js';
import { FieldError, FormError } from '../ui/errors.js';
import { useAction } from '../ui/use-action.js';

const FIELDS = ['currentPassword', 'newPassword'];

/**
 * Changes the signed-in person's password. The confirmation is checked here (the API never sees
 * it); the API checks the rest, and ends the person's other sessions.
 */
export function ChangePasswordForm() {
  const { client } = usePortal();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const [changed, setChanged] = useState(false);
  const change = useAction(
    () => client.changePassword(current, next),
    () => {
      setCurrent('');
      setNext('');
      setConfirm('');
      setChanged(true);
    },
  );
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    setChanged(false);
    if (next !== confirm) {
      setMismatch(true);
      change.clear();
      return;
    }
    setMismatch(false);
    change.run();
  };
  const currentError = change.error?.violationOf('currentPassword');
  const newError = change.error?.violationOf('newPassword');

  return (
    <form onSubmit={submit} className="card" aria-labelledby="password-heading">
      <h2 id="password-heading">Change password</h2>
      <label htmlFor="current-password">Current password</label>
      <input
        id="current-password"
        type="password"
        autoComplete="current-password"
        required
        value={current}
        aria-invalid={currentError !== undefined}
        aria-describedby={currentError === undefined ? undefined : 'current-password-error'}
        onChange={(e) => {
          setCurrent(e.target.value);
        }}
      />
      <FieldError error={change.error} field="currentPassword" id="current-password-error" />
      <label htmlFor="new-password">New password</label>
      <input
        id="new-password"
        type="password"
        autoComplete="new-password"
        required
        value={next}
        aria-invalid={newError !== undefined}
        aria-describedby={
          newError === undefined ? 'new-password-hint' : 'new-password-error new-password-hint'
        }
        onChange={(e) => {
          setNext(e.target.value);
        }}
      />
      <FieldError error={change.error} field="newPassword" id="new-password-error" />
      <p id="new-password-hint" className="muted">
        12 to 256 characters, different from the current one.
      </p>
      <label htmlFor="confirm-password">Confirm new password</label>
      <input
        id="confirm-password"
        type="password"
        autoComplete="new-password"
        required
        value={confirm}
        aria-invalid={mismatch}
        aria-describedby={mismatch ? 'confirm-password-error' : undefined}
        onChange={(e) => {
          setConfirm(e.target.value);
        }}
      />
      {mismatch && (
        <p id="confirm-password-error" className="error">
          does not match the new password
        </p>
      )}
      <FormError error={change.error} fields={FIELDS} />
      {changed && (
        <p role="status" className="success">
          Password changed; your other sessions were signed out.
        </p>
      )}
      <div>
        <button type="submit" disabled={change.busy}>
          Change password
        </button>
      </div>
    </form>
  );
}
