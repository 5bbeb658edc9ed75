/**
 * The portal's pages, by path (TanStack Router, routes in code). Paths follow the API's resource names,
 * so the page of `accounts/a/apps/x/environments/e` is at `/accounts/a/apps/x/environments/e`; the
 * control plane answers every such path with index.html, so a reload or a shared link opens the page.
 *
 * Only the first page a signed-in user sees (an account's applications) is in the entry's JavaScript;
 * every other page is a chunk of its own, loaded when it is opened or a link to it is hovered.
 */
import { createRootRoute, createRoute, createRouter, lazyRouteComponent } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { AppsPage } from '../pages/apps-page.js';
import { HomePage } from '../pages/home-page.js';
import { NotFoundPage } from '../pages/not-found-page.js';
import { useRouteParams } from './route-params.js';
import { Shell } from './shell.js';

const root = createRootRoute({ component: Shell, notFoundComponent: NotFoundPage });
const home = createRoute({ getParentRoute: () => root, path: '/', component: HomePage });
const profile = createRoute({
  getParentRoute: () => root,
  path: 'profile',
  component: lazyRouteComponent(() => import('../pages/profile-page.js'), 'ProfilePage'),
});
const account = createRoute({ getParentRoute: () => root, path: 'accounts/$account' });

/** An account's page, given the account of the path. */
const ofAccount = (Page: (props: { account: string }) => ReactNode) =>
  function AccountRoute() {
    const { account: accountId } = useRouteParams();
    return <Page key={accountId} account={accountId} />;
  };
const apps = createRoute({ getParentRoute: () => account, path: '/', component: ofAccount(AppsPage) });
const members = createRoute({
  getParentRoute: () => account,
  path: 'members',
  component: lazyRouteComponent(
    async () => ({
      MembersRoute: ofAccount((await import('../pages/members-page.js')).MembersPage),
    }),
    'MembersRoute',
  ),
});
const events = createRoute({
  getParentRoute: () => account,
  path: 'events',
  component: lazyRouteComponent(
    async () => ({
      EventsRoute: ofAccount((await import('../pages/event-notifications-page.js')).EventNotificationsPage),
    }),
    'EventsRoute',
  ),
});
const app = createRoute({
  getParentRoute: () => account,
  path: 'apps/$app',
  component: lazyRouteComponent(() => import('../pages/app-page.js'), 'AppPage'),
});
const build = createRoute({
  getParentRoute: () => account,
  path: 'apps/$app/environments/$env/builds/$build',
  component: lazyRouteComponent(() => import('../pages/build-page.js'), 'BuildPage'),
});
const environment = createRoute({
  getParentRoute: () => account,
  path: 'apps/$app/environments/$env',
  component: lazyRouteComponent(() => import('../environment/environment-page.js'), 'EnvironmentPage'),
});

const routeTree = root.addChildren([
  home,
  profile,
  account.addChildren([
    apps,
    members,
    events,
    app,
    build,
    environment.addChildren([
      // The environment page's tabs, each a path under the environment's.
      createRoute({
        getParentRoute: () => environment,
        path: '/',
        component: lazyRouteComponent(
          () => import('../environment/environment-overview.js'),
          'EnvironmentOverview',
        ),
      }),
      createRoute({
        getParentRoute: () => environment,
        path: 'builds',
        component: lazyRouteComponent(() => import('../environment/builds-tab.js'), 'BuildsTab'),
      }),
      createRoute({
        getParentRoute: () => environment,
        path: 'usage',
        component: lazyRouteComponent(() => import('../environment/usage-tab.js'), 'UsageTab'),
      }),
      createRoute({
        getParentRoute: () => environment,
        path: 'logs',
        component: lazyRouteComponent(() => import('../environment/runtime-logs-tab.js'), 'RuntimeLogsTab'),
      }),
      createRoute({
        getParentRoute: () => environment,
        path: 'domains',
        component: lazyRouteComponent(
          () => import('../environment/environment-domains.js'),
          'EnvironmentDomains',
        ),
      }),
      createRoute({
        getParentRoute: () => environment,
        path: 'webhooks',
        component: lazyRouteComponent(
          () => import('../environment/environment-webhooks.js'),
          'EnvironmentWebhooks',
        ),
      }),
      createRoute({
        getParentRoute: () => environment,
        path: 'reports',
        component: lazyRouteComponent(() => import('../environment/reports-tab.js'), 'ReportsTab'),
      }),
    ]),
  ]),
]);

export const router = createRouter({ routeTree, defaultPreload: 'intent', scrollRestoration: true });
