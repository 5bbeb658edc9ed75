/** `/`: the applications of the account last looked at (or the first), or why there are none. */
import { Alert, Code } from '@mantine/core';
import { useLocalStorage } from '@mantine/hooks';
import { Navigate } from '@tanstack/react-router';
import { usePortal } from '../portal/portal-context.js';
import { accountPage } from '../portal/router.js';
import { usePageTitle } from '../ui/page-title.js';

export function HomePage() {
  const { accounts } = usePortal();
  const [last] = useLocalStorage({ key: 'atoll.account', defaultValue: '' });
  usePageTitle();
  const account = accounts.find((a) => a.accountId === last) ?? accounts[0];
  if (account === undefined)
    return (
      <Alert title="No account yet" variant="light">
        You are not a member of any account yet. Ask an owner to add you, or an operator to create one with{' '}
        <Code>atoll admin accounts create</Code>.
      </Alert>
    );
  return <Navigate to={accountPage(account.accountId)} replace />;
}
