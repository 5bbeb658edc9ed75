/**
 * The actions on an environment's live deployment: redeploy it, rebuild, clean rebuild, clear the
 * edge's cache. Each asks first, in words that say what will happen; one that cannot run now is
 * disabled with the reason on hover.
 */
import { Button, Group, Text, Tooltip } from '@mantine/core';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { IconEraser, IconHammer, IconRefresh, IconRocket } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import type { Environment, Operation } from '../../../src/client/api-client.js';
import { buildLabel } from '../builds/build-summary.js';
import { useAccount, usePortal } from '../portal/portal-context.js';
import { keys, latestBuildQuery } from '../portal/queries.js';
import { pageOf, useGo } from '../portal/router.js';
import { FormError } from '../ui/errors.js';
import { useAction } from '../ui/use-action.js';

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
        <Action
          label="Redeploy"
          icon={<IconRocket size={16} aria-hidden />}
          disabledReason={nothingLive ? 'Nothing is live yet to redeploy.' : undefined}
          loading={redeploy.busy}
          busy={busy}
          title="Redeploy the live build?"
          warning={`Build ${buildLabel(environment.build)} is deployed again as it is, without building: the app restarts with the variables it was built with, and traffic moves once it answers its health check.`}
          confirm="Redeploy"
          onConfirm={redeploy.run}
        />
        <Action
          label="Rebuild"
          icon={<IconRefresh size={16} aria-hidden />}
          disabledReason={
            nothingUploaded ? 'Nothing uploaded yet: upload a .zip of the code first.' : undefined
          }
          loading={rebuild.busy}
          busy={busy}
          title="Rebuild?"
          warning={`${fromBranch ? `The newest commit of ${environment.branch} is fetched and built` : 'The last upload is built again'}, with the current variables, reusing the dependency cache. The live site keeps serving until the new build is deployed.`}
          confirm="Rebuild"
          onConfirm={() => {
            rebuild.run(false);
          }}
        />
        <Action
          label="Clean rebuild"
          icon={<IconHammer size={16} aria-hidden />}
          disabledReason={
            nothingUploaded ? 'Nothing uploaded yet: upload a .zip of the code first.' : undefined
          }
          loading={rebuild.busy}
          busy={busy}
          title="Clean rebuild?"
          warning="Like a rebuild, after dropping the dependency and framework caches: slower, and the fix when a cache holds something stale."
          confirm="Clean rebuild"
          onConfirm={() => {
            rebuild.run(true);
          }}
        />
        <Action
          label="Clear cache"
          icon={<IconEraser size={16} aria-hidden />}
          disabledReason={nothingLive ? 'Nothing is live yet, so nothing is cached.' : undefined}
          loading={clearCache.busy}
          busy={busy}
          title="Clear the edge cache?"
          warning="Every page the edge keeps for this environment is dropped: the next request of each goes to the app, which may be slower for a moment."
          confirm="Clear cache"
          onConfirm={clearCache.run}
        />
      </Group>
      <FormError error={redeploy.error} />
      <FormError error={rebuild.error} />
      <FormError error={clearCache.error} />
    </>
  );
}

/** A button that asks first; disabled with `disabledReason` shown on hover and focus. */
function Action(props: {
  label: string;
  icon: ReactNode;
  disabledReason: string | undefined;
  loading: boolean;
  busy: boolean;
  title: string;
  warning: string;
  confirm: string;
  onConfirm: () => void;
}) {
  const disabled = props.disabledReason !== undefined;
  const reasonId = `${props.label.toLowerCase().replace(/\s+/g, '-')}-reason`;
  const button = (
    <Button
      variant="default"
      size="sm"
      leftSection={props.icon}
      loading={props.loading}
      disabled={props.busy && !props.loading}
      data-disabled={disabled || undefined}
      aria-disabled={disabled || undefined}
      aria-describedby={disabled ? reasonId : undefined}
      onClick={(event) => {
        if (disabled) {
          event.preventDefault();
          return;
        }
        modals.openConfirmModal({
          title: props.title,
          children: <Text size="sm">{props.warning}</Text>,
          labels: { confirm: props.confirm, cancel: 'Cancel' },
          onConfirm: props.onConfirm,
        });
      }}
    >
      {props.label}
    </Button>
  );
  if (!disabled) return button;
  return (
    <Tooltip label={props.disabledReason} withArrow>
      <span>
        {button}
        <span id={reasonId} className="visually-hidden">
          {props.disabledReason}
        </span>
      </span>
    </Tooltip>
  );
}
