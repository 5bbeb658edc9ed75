/** The buttons that change a build (cancel, redeploy), shared by the Builds tab and the build page. */
import { Button } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconArrowBackUp, IconPlayerStop } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import type { Build } from '../../../src/client/api-client.js';
import { usePortal } from '../portal/portal-context.js';
import { keys } from '../portal/queries.js';
import { pageOf, useGo } from '../portal/router.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { FormError } from '../ui/errors.js';
import { useAction } from '../ui/use-action.js';
import { buildLabel } from './build-summary.js';

/** The environment a build belongs to (`…/environments/{env}/builds/{id}` → `…/environments/{env}`). */
function environmentOf(build: Build): string {
  return build.name.split('/builds/')[0] ?? '';
}

/** Stops a queued or running build; the builds are read again so the new state shows at once. */
export function CancelBuildButton(props: { build: Build }) {
  const { client } = usePortal();
  const queryClient = useQueryClient();
  const cancel = useAction(
    () => client.cancelBuild(props.build.name),
    () => {
      void queryClient.invalidateQueries({ queryKey: keys.builds(environmentOf(props.build)) });
      void queryClient.invalidateQueries({ queryKey: keys.build(props.build.name) });
      notifications.show({ message: `Build ${buildLabel(props.build)} cancelled.` });
    },
  );
  return (
    <>
      <Button
        size="xs"
        color="red"
        variant="light"
        leftSection={<IconPlayerStop size={14} aria-hidden />}
        loading={cancel.busy}
        aria-label={`Cancel build ${buildLabel(props.build)}`}
        onClick={() => {
          cancel.run();
        }}
      >
        Cancel
      </Button>
      <FormError error={cancel.error} />
    </>
  );
}

/**
 * Deploys an earlier succeeded build again (a rollback: safe, and undone by redeploying another),
 * after a confirmation since it replaces what is live; then opens the new REDEPLOY build's page.
 */
export function RedeployBuildButton(props: { build: Build; size?: 'xs' | 'sm' }) {
  const { client } = usePortal();
  const go = useGo();
  const redeploy = useAction(
    () => client.redeployBuild(props.build.name),
    (operation) => {
      notifications.show({ color: 'teal', message: `Rolling back to build ${buildLabel(props.build)}.` });
      if (operation.metadata.build !== undefined) go(pageOf(operation.metadata.build));
    },
  );
  return (
    <>
      <ConfirmButton
        label="Redeploy"
        aria-label={`Redeploy build ${buildLabel(props.build)}`}
        tone="safe"
        size={props.size ?? 'xs'}
        leftSection={<IconArrowBackUp size={14} aria-hidden />}
        confirmLabel="Redeploy this build"
        warning={`Build ${buildLabel(props.build)} goes live again in place of the live one, without building: its artifact and the variables it was built with. Redeploying the other build undoes it.`}
        busy={redeploy.busy}
        onConfirm={redeploy.run}
      />
      <FormError error={redeploy.error} />
    </>
  );
}
