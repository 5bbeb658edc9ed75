/** The signed-in person's own page (`/profile`), made of the profile's parts. */
import { usePortal } from '../portal/portal-context.js';
import { ApiCredentials } from '../profile/api-credentials.js';
import { ChangePasswordForm } from '../profile/change-password-form.js';

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
