/** The profile's password change form. */
import { Button, Group, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useState, type SyntheticEvent } from 'react';
import { usePortal } from '../portal/portal-context.js';
import { fieldError, FormError } from '../ui/errors.js';
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
  const change = useAction(
    () => client.changePassword(current, next),
    () => {
      setCurrent('');
      setNext('');
      setConfirm('');
      notifications.show({
        color: 'teal',
        title: 'Password changed',
        message: 'Password changed; your other sessions were signed out.',
      });
    },
  );
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    if (next !== confirm) {
      setMismatch(true);
      change.clear();
      return;
    }
    setMismatch(false);
    change.run();
  };

  return (
    <Paper
      withBorder
      p="md"
      radius="md"
      component="form"
      onSubmit={submit}
      aria-labelledby="password-heading"
    >
      <Title order={2} size="h3" id="password-heading">
        Change password
      </Title>
      <Text size="sm" c="dimmed" mb="md">
        Your portal password. Changing it signs out your other sessions; API credentials keep working.
      </Text>
      <Stack gap="sm" className="password-fields">
        <PasswordInput
          id="current-password"
          label="Current password"
          autoComplete="current-password"
          required
          withAsterisk={false}
          value={current}
          error={fieldError(change.error, 'currentPassword')}
          // PasswordInput leaves aria-invalid to its caller.
          aria-invalid={fieldError(change.error, 'currentPassword') !== undefined}
          onChange={(e) => {
            setCurrent(e.currentTarget.value);
          }}
        />
        <PasswordInput
          id="new-password"
          label="New password"
          description="12 to 256 characters, different from the current one."
          autoComplete="new-password"
          required
          withAsterisk={false}
          value={next}
          error={fieldError(change.error, 'newPassword')}
          // PasswordInput leaves aria-invalid to its caller.
          aria-invalid={fieldError(change.error, 'newPassword') !== undefined}
          onChange={(e) => {
            setNext(e.currentTarget.value);
          }}
        />
        <PasswordInput
          id="confirm-password"
          label="Confirm new password"
          autoComplete="new-password"
          required
          withAsterisk={false}
          value={confirm}
          error={mismatch ? 'does not match the new password' : undefined}
          aria-invalid={mismatch}
          onChange={(e) => {
            setConfirm(e.currentTarget.value);
          }}
        />
        <FormError error={change.error} fields={FIELDS} />
        <Group>
          <Button type="submit" loading={change.busy}>
            Change password
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
