/**
 * The actions on an environment's live deployment: redeploy it, rebuild, clean rebuild, clear the
 * edge's cache. Each asks first, in words that say what will happen; one that cannot run now is
 * disabled with the reason on hover.
 */
import { Group } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconEraser, IconHammer, IconRefresh, IconRocket } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { Environment, Operation } from '../../../src/client/api-client.js';
import { buildLabel } from '../builds/build-summary.js';
import { useAccount, usePortal } from '../portal/portal-context.js';
import { keys, latestBuildQuery } from '../portal/queries.js';
import { pageOf, useGo } from '../portal/router.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { FormError } from '../ui/errors.js';
import { useAction } from '../ui/use-action.js';

const NOTHING_UPLOADED = 'Nothing uploaded yet: upload a .zip of the code first.';

export function EnvironmentActions(props: { environment: Environment }) {
  const { client } = usePortal();
  const { environment } = props;
  const role = useAccount(environment.name.split('/')[1] ?? '')?.role;
  const queryClient = useQueryClient();
  const go = useGo();
  const latest = useQuery(latestBuildQuery(client, environment.name));
  const started = (what: string) => (operation: Operation) => {
    void queryClient.invalidateQueries({ queryKey: keys.builds(environment.name) });
    const build = operation.metadata.build;
    notifications.show({
      color: 'teal',
      message: `${what} started${build === undefined ? '' : `: build ${buildLabel(build)}`}.`,
    });
    if (build !== undefined && !build.endsWith('/no_build')) go(pageOf(build));
  };
  const redeploy = useAction(() => client.redeployBuild(environment.build), started('Redeploy'));
  const rebuild = useAction(
    (clean: boolean) => client.rebuild(environment.name, clean),
    (operation) => {
      started('Build')(operation);
    },
  );
  const clearCache = useAction(
    () => client.clearCache(environment.name),
    () => {
      notifications.show({
        color: 'teal',
        message: 'The cache is empty: the next request of each page goes to the app.',
      });
    },
  );
  if (role === 'viewer' || role === undefined) return null;

  const fromBranch = environment.branch !== 'uploadable';
  const nothingUploaded = !fromBranch && latest.data === null;
  const nothingLive = environment.build === '';
  const busy = redeploy.busy || rebuild.busy || clearCache.busy;

  return (
    <>
      <Group gap="xs" wrap="wrap" role="group" aria-label="Environment actions">
        <ConfirmButton
          tone="safe"
          label="Redeploy"
          leftSection={<IconRocket size={16} aria-hidden />}
          disabledReason={nothingLive ? 'Nothing is live yet to redeploy.' : undefined}
          busy={redeploy.busy}
          disabled={busy && !redeploy.busy}
          title="Redeploy the live build?"
          warning={`Build ${buildLabel(environment.build)} is deployed again as it is, without building: the app restarts with the variables it was built with, and traffic moves once it answers its health check.`}
          confirmLabel="Redeploy"
          onConfirm={redeploy.run}
        />
        <ConfirmButton
          tone="safe"
          label="Rebuild"
          leftSection={<IconRefresh size={16} aria-hidden />}
          disabledReason={nothingUploaded ? NOTHING_UPLOADED : undefined}
          busy={rebuild.busy}
          disabled={busy && !rebuild.busy}
          title="Rebuild?"
          warning={`${fromBranch ? `The newest commit of ${environment.branch} is fetched and built` : 'The last upload is built again'}, with the current variables, reusing the dependency cache. The live site keeps serving until the new build is deployed.`}
          confirmLabel="Rebuild"
          onConfirm={() => {
            rebuild.run(false);
          }}
        />
        <ConfirmButton
          tone="safe"
          label="Clean rebuild"
          leftSection={<IconHammer size={16} aria-hidden />}
          disabledReason={nothingUploaded ? NOTHING_UPLOADED : undefined}
          busy={rebuild.busy}
          disabled={busy && !rebuild.busy}
          title="Clean rebuild?"
          warning="Like a rebuild, after dropping the dependency and framework caches: slower, and the fix when a cache holds something stale."
          confirmLabel="Clean rebuild"
          onConfirm={() => {
            rebuild.run(true);
          }}
        />
        <ConfirmButton
          tone="safe"
          label="Clear cache"
          leftSection={<IconEraser size={16} aria-hidden />}
          disabledReason={nothingLive ? 'Nothing is live yet, so nothing is cached.' : undefined}
          busy={clearCache.busy}
          disabled={busy && !clearCache.busy}
          title="Clear the edge cache?"
          warning="Every page the edge keeps for this environment is dropped: the next request of each goes to the app, which may be slower for a moment."
          confirmLabel="Clear cache"
          onConfirm={clearCache.run}
        />
      </Group>
      <FormError error={redeploy.error} />
      <FormError error={rebuild.error} />
      <FormError error={clearCache.error} />
    </>
  );
}
