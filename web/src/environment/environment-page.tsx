/** The environment page (`…/environments/{env}/{tab}`): its state above its tabs, one file each here. */
import { useCallback, type ReactNode } from 'react';
import type { Environment } from '../../../src/client/api-client.js';
import { buildId } from '../builds/build-summary.js';
import { usePortal } from '../portal/portal-context.js';
import type { Params } from '../portal/route-params.js';
import { Link, pageOf } from '../portal/router.js';
import { LoadError } from '../ui/errors.js';
import { POLL_MS, useLoad } from '../ui/use-load.js';
import { BuildsTab } from './builds-tab.js';
import { EnvironmentDomains } from './environment-domains.js';
import { EnvironmentOverview } from './environment-overview.js';
import type { EnvironmentTabProps } from './environment-tab-props.js';
import { EnvironmentWebhooks } from './environment-webhooks.js';
import { ReportsTab } from './reports-tab.js';
import { RuntimeLogsTab } from './runtime-logs-tab.js';
import { UsageTab } from './usage-tab.js';

/** The environment page's tabs: the path after the environment's, the label, the content. */
const TABS: readonly { path: string; label: string; tab: (props: EnvironmentTabProps) => ReactNode }[] = [
  { path: '', label: 'Overview', tab: (p) => <EnvironmentOverview {...p} /> },
  { path: 'builds', label: 'Builds', tab: (p) => <BuildsTab {...p} /> },
  { path: 'usage', label: 'Usage', tab: (p) => <UsageTab {...p} /> },
  { path: 'logs', label: 'Runtime logs', tab: (p) => <RuntimeLogsTab {...p} /> },
  { path: 'domains', label: 'Domains', tab: (p) => <EnvironmentDomains {...p} /> },
  { path: 'webhooks', label: 'Webhooks', tab: (p) => <EnvironmentWebhooks {...p} /> },
  { path: 'reports', label: 'Reports', tab: (p) => <ReportsTab {...p} /> },
];

/**
 * An environment: its state and live URL above tabs for what can be done with it. The environment
 * is read again every second, so a deployment or a change made elsewhere shows without a reload.
 */
export function EnvironmentPage(props: { params: Params; tab: string }) {
  const { client } = usePortal();
  const account = props.params.a ?? '';
  const app = props.params.app ?? '';
  const name = `accounts/${account}/apps/${app}/environments/${props.params.env ?? ''}`;
  const environment = useLoad(
    useCallback(() => client.getEnvironment(name), [client, name]),
    POLL_MS,
  );
  const tab = TABS.find((t) => t.path === props.tab);
  const data = environment.data;

  return (
    <section aria-labelledby="environment-heading">
      <p className="crumbs">
        <Link to={`/accounts/${encodeURIComponent(account)}`}>{account}</Link> /{' '}
        <Link to={`/accounts/${encodeURIComponent(account)}/apps/${encodeURIComponent(app)}`}>{app}</Link>
      </p>
      <h1 id="environment-heading">{data?.displayName ?? 'Environment'}</h1>
      <LoadError error={environment.error} />
      {data !== undefined && (
        <>
          <EnvironmentState environment={data} />
          <nav aria-label="Environment pages" className="tabs">
            {TABS.map((t) => {
              const to = `${pageOf(name)}${t.path === '' ? '' : `/${t.path}`}`;
              return (
                <Link key={t.path} to={to} aria-current={t.path === props.tab ? 'page' : undefined}>
                  {t.label}
                </Link>
              );
            })}
          </nav>
          {tab === undefined ? (
            <p>There is no such page of an environment.</p>
          ) : (
            tab.tab({ environment: data, account, reload: environment.reload })
          )}
        </>
      )}
    </section>
  );
}

function EnvironmentState(props: { environment: Environment }) {
  const { environment } = props;
  return (
    <dl className="facts">
      <dt>State</dt>
      <dd>
        {environment.reconciling ? (
          <span className="badge running">Changing…</span>
        ) : environment.build === '' ? (
          <span className="badge">Nothing deployed yet</span>
        ) : (
          <span className="badge live">Live</span>
        )}
      </dd>
      {environment.build !== '' && (
        <>
          <dt>Live URL</dt>
          <dd>
            <a href={environment.url} target="_blank" rel="noreferrer">
              {environment.url}
            </a>
          </dd>
          <dt>Live build</dt>
          <dd>
            <Link to={pageOf(environment.build)}>{buildId(environment.build)}</Link>
          </dd>
        </>
      )}
    </dl>
  );
}
