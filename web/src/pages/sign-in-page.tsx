/** The page shown until there is a session: it signs in and hands the session to the shell. */
import { Alert, Button, Center, Paper, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { useState, type SyntheticEvent } from 'react';
import { asApiError, type ApiClient, type Session } from '../../../src/client/api-client.js';
import { usePageTitle } from '../ui/page-title.js';

/**
 * Email and password; the API's answer (wrong password, locked out) is shown above the button, in a
 * space kept for it so the button does not jump.
 */
export function SignInPage(props: { client: ApiClient; onSignedIn: (session: Session) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  usePageTitle('Sign in');

  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    props.client.signIn(email, password).then(props.onSignedIn, (failure: unknown) => {
      setError(asApiError(failure).message);
      setBusy(false);
    });
  };

  return (
    <Center component="main" mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" radius="lg" w="100%" maw={400}>
        <Stack gap="md">
          <Center>
            <img src="/favicon.svg" alt="" width={40} height={40} />
          </Center>
          <Title order={1} size="h2" ta="center">
            Sign in to Atoll
          </Title>
          <form onSubmit={submit} aria-describedby={error === undefined ? undefined : 'sign-in-error'}>
            <Stack gap="sm">
              <TextInput
                id="email"
                label="Email address"
                type="email"
                autoComplete="username"
                required
                withAsterisk={false}
                value={email}
                onChange={(e) => {
                  setEmail(e.currentTarget.value);
                }}
              />
              <PasswordInput
                id="password"
                label="Password"
                autoComplete="current-password"
                required
                withAsterisk={false}
                value={password}
                onChange={(e) => {
                  setPassword(e.currentTarget.value);
                }}
              />
              <div className="sign-in-error-slot">
                {error !== undefined && (
                  <Alert id="sign-in-error" role="alert" color="red" variant="light" p="xs">
                    {error}
                  </Alert>
                )}
              </div>
              <Button type="submit" loading={busy} fullWidth>
                Sign in
              </Button>
            </Stack>
          </form>
        </Stack>
      </Paper>
    </Center>
  );
}
