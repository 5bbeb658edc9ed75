import { ApiCredentials } from './api-credentials.js';
import { ChangePasswordForm } from './change-password-form.js';
import { usePortal } from './portal-context.js';

/** The signed-in person's own settings: API credentials and the password. */
export function ProfilePage() {
  const { session } = usePortal();
  return (
    <section aria-labelledby="profile-heading">
      <h1 id="profile-heading">Your profile</h1>
      <p className="muted">
        Signed in as <strong>{session.user.email}</strong>.
      </p>
      <ApiCredentials />
      <ChangePasswordForm />
    </section>
  );
}
