/** The signed-in person's own page (`/profile`), made of the profile's parts. */
import { Avatar, Group, Stack, Text, Title } from '@mantine/core';
import { usePortal } from '../portal/portal-context.js';
import { ApiCredentials } from '../profile/api-credentials.js';
import { ChangePasswordForm } from '../profile/change-password-form.js';
import { usePageTitle } from '../ui/page-title.js';
import '../profile/profile.css';

/** The signed-in person's own settings: API credentials and the password. */
export function ProfilePage() {
  const { session } = usePortal();
  const { email } = session.user;
  usePageTitle('Your profile');
  return (
    <Stack gap="lg" className="profile-page">
      <Group gap="md" wrap="nowrap">
        <Avatar size="lg" radius="xl" color="teal" variant="filled" aria-hidden>
          {email.slice(0, 2).toUpperCase()}
        </Avatar>
        <div className="profile-who">
          <Title order={1}>Your profile</Title>
          <Text c="dimmed" size="sm" className="profile-email">
            Signed in as <strong>{email}</strong>
          </Text>
        </div>
      </Group>
      <ApiCredentials />
      <ChangePasswordForm />
    </Stack>
  );
}
