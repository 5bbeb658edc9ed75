/** The buttons that change a build (cancel, redeploy), shared by the Builds tab and the build page. */
import type { Build } from '../../../src/client/api-client.js';
import { usePortal } from '../portal/portal-context.js';
import { navigate, pageOf } from '../portal/router.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { FormError } from '../ui/errors.js';
import { useAction } from '../ui/use-load.js';
import { buildId } from './build-summary.js';

/** Stops a queued or running build; `onDone` reads the builds again so the new state shows at once. */
export function CancelBuildButton(props: { build: Build; onDone: () => void }) {
  const { client } = usePortal();
  const cancel = useAction(() => client.cancelBuild(props.build.name), props.onDone);
  return (
    <>
      <button
        type="button"
        className="danger small"
        disabled={cancel.busy}
        aria-label={`Cancel build ${buildId(props.build)}`}
        onClick={() => {
          cancel.run();
        }}
      >
        Cancel
      </button>
      <FormError error={cancel.error} />
    </>
  );
}

/**
 * Deploys an earlier succeeded build again (rollback), after a confirmation since it replaces what
 * is live; then opens the new REDEPLOY build's page to follow it.
 */
export function RedeployBuildButton(props: { build: Build }) {
  const { client } = usePortal();
  const redeploy = useAction(
    () => client.redeployBuild(props.build.name),
    (operation) => {
      if (operation.metadata.build !== undefined) navigate(pageOf(operation.metadata.build));
    },
  );
  return (
    <>
      <ConfirmButton
        label="Redeploy"
        confirmLabel="Redeploy this build"
        warning={`Build ${buildId(props.build)} goes live again in place of the live one, without building.`}
        busy={redeploy.busy}
        onConfirm={redeploy.run}
      />
      <FormError error={redeploy.error} />
    </>
  );
}
