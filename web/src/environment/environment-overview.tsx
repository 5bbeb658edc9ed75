/** The environment page's Overview tab: deploying new code, previews, settings and deletion. */
import { Button, Checkbox, Code, Group, Paper, Progress, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconFileZip, IconUpload } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type DragEvent, type SyntheticEvent } from 'react';
import type { Environment, Operation } from '../../../src/client/api-client.js';
import { buildLabel, isUnfinished, phaseLabel } from '../builds/build-summary.js';
import { useAccount, usePortal } from '../portal/portal-context.js';
import { buildQuery, keys } from '../portal/queries.js';
import { appPage, Link, pageOf, useGo } from '../portal/router.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { FormError, LoadError } from '../ui/errors.js';
import { useAction } from '../ui/use-action.js';
import {
  draftFields,
  environmentBody,
  environmentDraft,
  EnvironmentFields,
  type EnvironmentDraft,
} from './environment-fields.js';
import { useEnvironmentTab } from './environment-tab-props.js';

/** The environment's main tab: new code, previews, its settings and its deletion. */
export function EnvironmentOverview() {
  const props = useEnvironmentTab();
  const { environment, account } = props;
  const role = useAccount(account)?.role;
  const [followed, setFollowed] = useState<string>();
  if (role === 'viewer')
    return <Text c="dimmed">You can look at this environment; changing it needs a developer or owner.</Text>;
  const fromBranch = environment.branch !== 'uploadable';
  return (
    <Stack gap="md">
      <DeploySection environment={environment} onBuild={setFollowed} />
      {followed !== undefined && <FollowedBuild build={followed} />}
      {fromBranch && environment.parentEnvironment === '' && (
        <PreviewsForm
          key={`previews-${environment.updateTime}`}
          environment={environment}
          onSaved={props.reload}
        />
      )}
      <SettingsForm key={environment.updateTime} environment={environment} onSaved={props.reload} />
      <Paper withBorder p="md" component="section" aria-labelledby="delete-environment-heading">
        <Group justify="space-between" wrap="wrap">
          <div>
            <Title order={2} size="h4" id="delete-environment-heading">
              Delete the environment
            </Title>
            <Text size="sm" c="dimmed">
              Its builds, domains and webhooks go with it.
            </Text>
          </div>
          <DeleteEnvironment environment={environment} />
        </Group>
      </Paper>
    </Stack>
  );
}

/** An upload by picker or drop, with its progress; a branch's environment says how it deploys instead. */
function DeploySection(props: { environment: Environment; onBuild: (build: string) => void }) {
  const { client } = usePortal();
  const queryClient = useQueryClient();
  const { environment } = props;
  const [progress, setProgress] = useState<number>();
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const upload = useAction(
    (file: File) =>
      client.uploadZip(environment.name, file, file.name, (sent, total) => {
        setProgress(total === 0 ? 1 : sent / total);
      }),
    (operation: Operation) => {
      setProgress(undefined);
      void queryClient.invalidateQueries({ queryKey: keys.builds(environment.name) });
      if (operation.metadata.build !== undefined) props.onBuild(operation.metadata.build);
    },
  );
  const onFile = (file: File | undefined) => {
    if (file) upload.run(file);
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    onFile(event.dataTransfer.files[0]);
  };
  const inputId = 'zip-upload';

  return (
    <Paper withBorder p="md" component="section" aria-labelledby="deploy-heading">
      <Title order={2} size="h4" id="deploy-heading" mb="sm">
        Deploy
      </Title>
      {environment.branch !== 'uploadable' ? (
        <Text size="sm">
          Builds the branch <Code>{environment.branch}</Code>: a push deploys its new commit (through the
          repository&apos;s webhook, or polling); Rebuild above fetches the branch&apos;s newest commit now.
        </Text>
      ) : (
        <div
          className="drop-zone"
          data-over={over}
          onDragOver={(event) => {
            event.preventDefault();
            setOver(true);
          }}
          onDragLeave={() => {
            setOver(false);
          }}
          onDrop={onDrop}
        >
          <Stack align="center" gap="xs">
            <IconFileZip size={32} aria-hidden />
            <Text size="sm">Drop a .zip of the code here, or</Text>
            <input
              ref={input}
              id={inputId}
              type="file"
              accept=".zip,application/zip"
              className="visually-hidden"
              tabIndex={-1}
              aria-label="Upload a .zip of the code"
              onChange={(event) => {
                onFile(event.target.files?.[0]);
                event.target.value = '';
              }}
            />
            <Button
              leftSection={<IconUpload size={16} aria-hidden />}
              loading={upload.busy}
              onClick={() => input.current?.click()}
            >
              Choose a .zip
            </Button>
            <Text size="xs" c="dimmed">
              It is built with npm in a sandbox, then served at this environment&apos;s address.
            </Text>
          </Stack>
        </div>
      )}
      {progress !== undefined && (
        <Progress value={progress * 100} mt="sm" aria-label="Upload progress" animated />
      )}
      <FormError error={upload.error} />
    </Paper>
  );
}

/** The build just started here, read every second until it has finished; a toast when it has. */
function FollowedBuild(props: { build: string }) {
  const { client } = usePortal();
  const build = useQuery(buildQuery(client, props.build));
  const data = build.data;
  const done = data !== undefined && !isUnfinished(data);
  const told = useRef(false);
  useEffect(() => {
    if (!done || told.current) return;
    told.current = true;
    notifications.show(
      data.state === 'SUCCEEDED'
        ? { color: 'teal', title: 'Deployed', message: `Build ${buildLabel(data)} is live.` }
        : {
            color: 'red',
            title: `Build ${buildLabel(data)} ${data.state.toLowerCase()}`,
            message: data.failureReason?.message ?? 'See its log.',
          },
    );
  }, [done, data]);
  return (
    <Paper withBorder p="md" component="section" aria-label="Latest build">
      <LoadError error={build.error} />
      <Group justify="space-between" wrap="wrap">
        <Text role="status" size="sm">
          {data === undefined || isUnfinished(data)
            ? `Building and deploying… ${data === undefined ? '' : phaseLabel(data.phase)}`
            : data.state === 'SUCCEEDED'
              ? 'Deployed.'
              : `The build ended ${data.state.toLowerCase()}: ${data.failureReason?.message ?? ''}`}
        </Text>
        <Link to={pageOf(props.build)}>Build log</Link>
      </Group>
    </Paper>
  );
}

/** Whether pull requests against the environment's branch get preview environments, forks' included. */
function PreviewsForm(props: { environment: Environment; onSaved: () => void }) {
  const { client } = usePortal();
  const { environment } = props;
  const [enabled, setEnabled] = useState(environment.previews.enabled);
  const [allowForks, setAllowForks] = useState(environment.previews.allowForks);
  const save = useAction(
    () => client.updateEnvironment(environment.name, { previews: { enabled, allowForks } }),
    () => {
      notifications.show({ color: 'teal', message: 'Preview settings saved.' });
      props.onSaved();
    },
  );
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    save.run();
  };
  return (
    <Paper withBorder p="md" component="form" aria-labelledby="previews-heading" onSubmit={submit}>
      <Stack gap="sm">
        <Title order={2} size="h4" id="previews-heading">
          Preview environments
        </Title>
        <Checkbox
          checked={enabled}
          onChange={(e) => {
            setEnabled(e.currentTarget.checked);
          }}
          label={
            <>
              A pull request against <Code>{environment.branch}</Code> gets its own environment and URL, with
              this environment&apos;s variables
            </>
          }
        />
        <Checkbox
          checked={allowForks}
          onChange={(e) => {
            setAllowForks(e.currentTarget.checked);
          }}
          label="Requests from forks too (their code then sees this environment's variables, secret ones included)"
        />
        <FormError error={save.error} />
        <Group>
          <Button type="submit" loading={save.busy}>
            Save previews
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

/** Display name, WordPress install and shell variables, saved with a PATCH. */
function SettingsForm(props: { environment: Environment; onSaved: () => void }) {
  const { client } = usePortal();
  const { environment } = props;
  const [draft, setDraft] = useState<EnvironmentDraft>(() => environmentDraft(environment));
  const [saved, setSaved] = useState(false);
  const save = useAction(
    () => client.updateEnvironment(environment.name, environmentBody(draft)),
    () => {
      setSaved(true);
      notifications.show({
        color: 'teal',
        message: 'Settings saved. Changed variables apply from the next build.',
      });
      props.onSaved();
    },
  );
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    setSaved(false);
    save.run();
  };
  return (
    <Paper withBorder p="md" component="form" onSubmit={submit} aria-labelledby="settings-heading">
      <Stack gap="sm">
        <Title order={2} size="h4" id="settings-heading">
          Settings
        </Title>
        <EnvironmentFields
          idPrefix="edit"
          draft={draft}
          onChange={(d) => {
            setSaved(false);
            setDraft(d);
          }}
          error={save.error}
        />
        <Text size="xs" c="dimmed">
          Changed shell variables apply from the next build.
        </Text>
        <FormError error={save.error} fields={draftFields(draft)} />
        {saved && (
          <Text role="status" size="sm" c="teal">
            Saved.
          </Text>
        )}
        <Group>
          <Button type="submit" loading={save.busy}>
            Save settings
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}

function DeleteEnvironment(props: { environment: Environment }) {
  const { client } = usePortal();
  const { environment } = props;
  const go = useGo();
  const [, account = '', , app = ''] = environment.name.split('/');
  const remove = useAction(
    () => client.deleteEnvironment(environment.name),
    () => {
      notifications.show({ message: `Environment ${environment.displayName} deleted.` });
      go(appPage(account, app));
    },
  );
  return (
    <>
      <ConfirmButton
        label="Delete environment"
        confirmLabel={`Delete ${environment.displayName}`}
        warning={`${environment.displayName}, its builds, domains and webhooks are deleted and its site stops answering. This cannot be undone.`}
        busy={remove.busy}
        onConfirm={remove.run}
      />
      <FormError error={remove.error} />
    </>
  );
}
