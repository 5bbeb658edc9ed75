/**
 * The portal's pages, by path (TanStack Router, routes in code). Paths follow the API's resource names,
 * so the page of `accounts/a/apps/x/environments/e` is at `/accounts/a/apps/x/environments/e`; the
 * control plane answers every such path with index.html, so a reload or a shared link opens the page.
 */
import {
  createRootRoute,
  createRoute,
  createRouter,
  lazyRouteComponent,
  type RouteComponent,
} from '@tanstack/react-router';
import { BuildsTab } from '../environment/builds-tab.js';
import { EnvironmentDomains } from '../environment/environment-domains.js';
import { EnvironmentOverview } from '../environment/environment-overview.js';
import { EnvironmentPage } from '../environment/environment-page.js';
import { EnvironmentWebhooks } from '../environment/environment-webhooks.js';
import { ReportsTab } from '../environment/reports-tab.js';
import { RuntimeLogsTab } from '../environment/runtime-logs-tab.js';
import { AppPage } from '../pages/app-page.js';
import { AppsPage } from '../pages/apps-page.js';
import { BuildPage } from '../pages/build-page.js';
import { EventNotificationsPage } from '../pages/event-notifications-page.js';
import { HomePage } from '../pages/home-page.js';
import { MembersPage } from '../pages/members-page.js';
import { NotFoundPage } from '../pages/not-found-page.js';
import { ProfilePage } from '../pages/profile-page.js';
import { useRouteParams } from './route-params.js';
import { Shell } from './shell.js';

const root = createRootRoute({ component: Shell, notFoundComponent: NotFoundPage });
const home = createRoute({ getParentRoute: () => root, path: '/', component: HomePage });
const profile = createRoute({ getParentRoute: () => root, path: 'profile', component: ProfilePage });
const account = createRoute({ getParentRoute: () => root, path: 'accounts/$account' });
/** An account's page, given the account of the path. */
const ofAccount = (Page: (props: { account: string }) => React.ReactNode) =>
  function AccountRoute() {
    const { account: accountId } = useRouteParams();
    return <Page key={accountId} account={accountId} />;
  };
const apps = createRoute({ getParentRoute: () => account, path: '/', component: ofAccount(AppsPage) });
const members = createRoute({
  getParentRoute: () => account,
  path: 'members',
  component: ofAccount(MembersPage),
});
const events = createRoute({
  getParentRoute: () => account,
  path: 'events',
  component: ofAccount(EventNotificationsPage),
});
const app = createRoute({ getParentRoute: () => account, path: 'apps/$app', component: AppPage });
const environment = createRoute({
  getParentRoute: () => account,
  path: 'apps/$app/environments/$env',
  component: EnvironmentPage,
});
const build = createRoute({
  getParentRoute: () => account,
  path: 'apps/$app/environments/$env/builds/$build',
  component: BuildPage,
});
/** The environment page's tabs, each a path under the environment's. */
const tab = (path: string, component: RouteComponent) =>
  createRoute({ getParentRoute: () => environment, path, component });

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
      tab('/', EnvironmentOverview),
      tab('builds', BuildsTab),
      // Loaded with the tab: its chart library stays out of the first page's JavaScript.
      tab(
        'usage',
        lazyRouteComponent(() => import('../environment/usage-tab.js'), 'UsageTab'),
      ),
      tab('logs', RuntimeLogsTab),
      tab('domains', EnvironmentDomains),
      tab('webhooks', EnvironmentWebhooks),
      tab('reports', ReportsTab),
    ]),
  ]),
]);

export const router = createRouter({ routeTree, defaultPreload: 'intent', scrollRestoration: true });
