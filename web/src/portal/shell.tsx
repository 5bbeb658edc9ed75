/**
 * The signed-in portal's frame: the header (home, account switcher, search, the user's menu) around
 * the page of the address, and the sign-in page until there is a session.
 */
import {
  Box,
  Button,
  Container,
  Group,
  Kbd,
  Loader,
  Menu,
  NativeSelect,
  Text,
  UnstyledButton,
} from '@mantine/core';
import { useHotkeys, useLocalStorage } from '@mantine/hooks';
import { IconChevronDown, IconLogout, IconSearch, IconUser } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Outlet, useLocation } from '@tanstack/react-router';
import { lazy, Suspense, useState } from 'react';
import type { Account } from '../../../src/client/api-client.js';
import { SignInPage } from '../pages/sign-in-page.js';
import { LoadError } from '../ui/errors.js';
import { client } from './client.js';
import { PortalContext } from './portal-context.js';
import { accountsQuery, keys, sessionQuery } from './queries.js';
import { accountPage, Link, useGo } from './router.js';

/** The command palette, loaded the first time it is asked for: the first page need not carry it. */
const CommandPalette = lazy(async () => ({ default: (await import('./command-palette.js')).CommandPalette }));

/** The portal: the sign-in page until there is a session, then the header and the page of the address. */
export function Shell() {
  const queryClient = useQueryClient();
  const session = useQuery(sessionQuery(client));
  const accounts = useQuery({
    ...accountsQuery(client),
    enabled: session.data != null,
  });
  // Each request to open the palette (Ctrl/Cmd-K anywhere, even in a field, or the header's button).
  const [paletteRequests, setPaletteRequests] = useState(0);
  const openPalette = () => {
    setPaletteRequests((n) => n + 1);
  };
  useHotkeys([['mod+K', openPalette]], []);

  if (session.isPending) return <Loading label="Loading…" />;
  if (session.data == null)
    return (
      <>
        <LoadError error={session.error ?? undefined} />
        <SignInPage
          client={client}
          onSignedIn={(signedIn) => {
            queryClient.setQueryData(keys.session, signedIn);
          }}
        />
      </>
    );
  const signOut = () => {
    void client.signOut().finally(() => {
      // A fresh load of the sign-in page: nothing of the signed-out user (cached answers, the CSRF token,
      // open menus and their listeners) stays in memory for whoever signs in next.
      window.location.replace('/');
    });
  };
  const user = session.data.user;
  return (
    <>
      <a className="skip-link" href="#content">
        Skip to the page
      </a>
      <header className="top-bar">
        <Group h="100%" px="md" gap="sm" wrap="nowrap">
          <Link to="/" className="brand" underline="never" aria-label="Atoll home">
            <img src="/favicon.svg" alt="" width={24} height={24} />
            <span className="brand-name">Atoll</span>
          </Link>
          {accounts.data !== undefined && <AccountSwitcher accounts={accounts.data} />}
          <Box flex={1} />
          <Button
            variant="default"
            size="xs"
            leftSection={<IconSearch size={14} aria-hidden />}
            rightSection={
              <Kbd size="xs" visibleFrom="sm" aria-hidden>
                Ctrl K
              </Kbd>
            }
            onClick={openPalette}
          >
            <span className="visually-hidden-below-sm">Search</span>
          </Button>
          <Menu position="bottom-end" withinPortal>
            <Menu.Target>
              <UnstyledButton className="user-button">
                <Group gap={6} wrap="nowrap">
                  <IconUser size={18} aria-hidden />
                  <span className="visually-hidden">Account menu of </span>
                  <Text span size="sm" className="user-email visually-hidden-below-sm">
                    {user.email}
                  </Text>
                  <IconChevronDown size={14} aria-hidden />
                </Group>
              </UnstyledButton>
            </Menu.Target>
            <Menu.Dropdown>
              <Menu.Label>{user.email}</Menu.Label>
              <Menu.Item component={Link} to="/profile" leftSection={<IconUser size={14} aria-hidden />}>
                Profile and API access
              </Menu.Item>
              <Menu.Item leftSection={<IconLogout size={14} aria-hidden />} onClick={signOut}>
                Sign out
              </Menu.Item>
            </Menu.Dropdown>
          </Menu>
        </Group>
      </header>
      <Container size="xl" py="lg" className="page" id="content" component="main">
        <LoadError error={accounts.error ?? undefined} />
        {accounts.data === undefined ? (
          <Loading label="Loading accounts…" />
        ) : (
          <PortalContext.Provider
            value={{
              client,
              session: session.data,
              accounts: accounts.data,
              reloadAccounts: () => void accounts.refetch(),
            }}
          >
            {paletteRequests > 0 && (
              <Suspense fallback={null}>
                <CommandPalette accounts={accounts.data} requests={paletteRequests} />
              </Suspense>
            )}
            <Outlet />
          </PortalContext.Provider>
        )}
      </Container>
    </>
  );
}

function Loading(props: { label: string }) {
  return (
    <Group justify="center" p="xl" role="status">
      <Loader size="sm" />
      <Text c="dimmed">{props.label}</Text>
    </Group>
  );
}

/**
 * The account being looked at: the one in the address, else the last one chosen (so the profile page
 * does not reset it). Choosing another opens its applications.
 */
function AccountSwitcher(props: { accounts: readonly Account[] }) {
  const path = useLocation({ select: (l) => l.pathname });
  const [last, setLast] = useLocalStorage({ key: 'atoll.account', defaultValue: '' });
  const inPath = /^\/accounts\/([^/]+)/.exec(path)?.[1];
  const current = inPath === undefined ? last : decodeURIComponent(inPath);
  const go = useGo();
  if (props.accounts.length === 0) return null;
  if (inPath !== undefined && current !== last)
    queueMicrotask(() => {
      setLast(current);
    });
  const known = props.accounts.some((a) => a.accountId === current);
  return (
    <NativeSelect
      aria-label="Account"
      size="xs"
      className="account-switcher"
      value={known ? current : ''}
      onChange={(e) => {
        setLast(e.currentTarget.value);
        go(accountPage(e.currentTarget.value));
      }}
      data={[
        ...(known ? [] : [{ value: '', label: 'Choose an account…' }]),
        ...props.accounts.map((a) => ({ value: a.accountId, label: `${a.accountId} (${a.role})` })),
      ]}
    />
  );
}
