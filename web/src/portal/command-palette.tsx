/**
 * The command palette (Ctrl/Cmd-K): jump to any application, environment or recent build of the
 * user's accounts. What it lists is read when it is first opened, then kept fresh by the query cache.
 */
import '@mantine/spotlight/styles.css';
import { Spotlight, spotlight, type SpotlightActionData } from '@mantine/spotlight';
import { IconApps, IconHammer, IconSearch, IconServer } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { resourceId, type Account, type ApiClient } from '../../../src/client/api-client.js';
import { buildLabel } from '../builds/build-summary.js';
import { client } from './client.js';
import { pageOf, useGo } from './router.js';

/** How many of each environment's newest builds the palette offers. */
const BUILDS_PER_ENVIRONMENT = 5;

interface Target {
  readonly id: string;
  readonly label: string;
  readonly description: string;
  readonly kind: 'app' | 'environment' | 'build';
  readonly path: string;
}

/** Everything the palette can jump to, across the user's accounts. */
async function loadTargets(api: ApiClient, accounts: readonly Account[]): Promise<Target[]> {
  const perAccount = await Promise.all(
    accounts.map(async (account) => {
      const apps = await api.listApps(account.accountId);
      const perApp = await Promise.all(
        apps.map(async (app): Promise<Target[]> => {
          const environments = await api.listEnvironments(account.accountId, app.appId);
          const builds = await Promise.all(
            environments.map(async (environment) =>
              (await api.listBuilds(environment.name, BUILDS_PER_ENVIRONMENT)).map((build): Target => ({
                id: build.name,
                label: `Build ${buildLabel(build)}`,
                description: `${app.appId} · ${environment.displayName} · ${build.state.toLowerCase()}`,
                kind: 'build',
                path: pageOf(build.name),
              })),
            ),
          );
          return [
            {
              id: app.name,
              label: app.appId,
              description: `Application in ${account.accountId}`,
              kind: 'app',
              path: pageOf(app.name),
            },
            ...environments.map((environment): Target => ({
              id: environment.name,
              label: `${app.appId} / ${environment.displayName}`,
              description: `Environment · ${resourceId(environment.name)}${environment.branch === 'uploadable' ? '' : ` · ${environment.branch}`}`,
              kind: 'environment',
              path: pageOf(environment.name),
            })),
            ...builds.flat(),
          ];
        }),
      );
      return perApp.flat();
    }),
  );
  return perAccount.flat();
}

const ICONS = { app: IconApps, environment: IconServer, build: IconHammer } as const;

/**
 * The palette, mounted at the first request to open it (shell.tsx owns the Ctrl/Cmd-K shortcut); each
 * new request (`requests` grows) opens it again.
 */
export function CommandPalette(props: { accounts: readonly Account[]; requests: number }) {
  const go = useGo();
  useEffect(() => {
    spotlight.open();
  }, [props.requests]);
  const targets = useQuery({
    queryKey: ['palette', props.accounts.map((a) => a.accountId)],
    queryFn: () => loadTargets(client, props.accounts),
    staleTime: 30_000,
  });
  const actions: SpotlightActionData[] = (targets.data ?? []).map((target) => {
    const Icon = ICONS[target.kind];
    return {
      id: target.id,
      label: target.label,
      description: target.description,
      leftSection: <Icon size={18} aria-hidden />,
      onClick: () => {
        go(target.path);
      },
    };
  });
  return (
    <Spotlight
      actions={actions}
      shortcut={null}
      nothingFound={targets.isFetching ? 'Loading…' : 'Nothing found'}
      highlightQuery
      limit={50}
      scrollable
      maxHeight={420}
      searchProps={{
        leftSection: <IconSearch size={18} aria-hidden />,
        placeholder: 'Jump to an application, environment or build…',
        'aria-label': 'Jump to an application, environment or build',
      }}
    />
  );
}
