/** The profile's API access: a person's credentials for the API and the CLI. */
import { Alert, Button, Code, Group, Paper, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle, IconKey } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { Credential, GeneratedCredential } from '../../../src/client/api-client.js';
import { usePortal } from '../portal/portal-context.js';
import { credentialsQuery, keys } from '../portal/queries.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { CopyButton } from '../ui/copy-button.js';
import { FormError, LoadError } from '../ui/errors.js';
import { RelativeTime } from '../ui/time.js';
import { useAction } from '../ui/use-action.js';
import { ReasonedButton } from '../ui/reasoned-button.js';

/** Why Generate waits while a new credential is shown: a second one would hide the first's password. */
const SHOWN_REASON = 'Store the new credential and press Done first.';

/** The caller's API credentials: generate one (its password shown once), see when each was used, revoke. */
export function ApiCredentials() {
  const { client } = usePortal();
  const queryClient = useQueryClient();
  const credentials = useQuery(credentialsQuery(client));
  const [generated, setGenerated] = useState<GeneratedCredential>();
  const generate = useAction(
    () => client.generateCredential(),
    (answer) => {
      setGenerated(answer);
      void queryClient.invalidateQueries({ queryKey: keys.credentials });
    },
  );
  const shown = generated !== undefined;

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="api-access-heading">
      <Group justify="space-between" align="flex-start" gap="sm" mb="md">
        <div className="grow">
          <Title order={2} size="h3" id="api-access-heading">
            API access
          </Title>
          <Text size="sm" c="dimmed">
            A credential is a user id and a password for HTTP Basic authentication, for scripts, the{' '}
            <Code>atoll</Code> CLI and CI pipelines. It acts as you, with your role in each account.
          </Text>
        </div>
        <ReasonedButton
          leftSection={<IconKey size={16} aria-hidden />}
          loading={generate.busy}
          disabledReason={shown ? SHOWN_REASON : undefined}
          reasonId="generate-reason"
          onClick={generate.run}
        >
          Generate credentials
        </ReasonedButton>
      </Group>
      <FormError error={generate.error} />
      {generated !== undefined && (
        <NewCredential
          credential={generated}
          onDone={() => {
            setGenerated(undefined);
          }}
        />
      )}
      <Title order={3} size="h5" mb="xs">
        Your credentials
      </Title>
      <LoadError error={credentials.error} />
      {credentials.data === undefined ? (
        credentials.error === null && (
          <Stack gap="xs" aria-busy="true" aria-label="Loading credentials">
            <Skeleton h={40} />
          </Stack>
        )
      ) : credentials.data.length === 0 ? (
        <Text size="sm" c="dimmed">
          You have no credentials yet. Generate one to call the API (<Code>/v1</Code>) from a script, the{' '}
          <Code>atoll</Code> CLI or a CI pipeline.
        </Text>
      ) : (
        <CredentialTable credentials={credentials.data} />
      )}
    </Paper>
  );
}

/** The answer of a generation: the one time its password can be read. */
function NewCredential(props: { credential: GeneratedCredential; onDone: () => void }) {
  const { userId, password } = props.credential;
  const example = `curl -u ${userId}:${password} ${window.location.origin}/v1/accounts`;
  return (
    <Paper
      withBorder
      p="md"
      radius="md"
      mb="lg"
      className="new-credential"
      role="region"
      aria-labelledby="new-credential-heading"
    >
      <Title order={3} size="h5" id="new-credential-heading" mb="xs">
        Your new credential
      </Title>
      <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={18} aria-hidden />} mb="sm">
        Store the password now: it is not shown again. If it is lost, revoke this credential and generate
        another.
      </Alert>
      <dl className="secret-facts">
        <dt>User id</dt>
        <dd>
          <code>{userId}</code>
          <CopyButton text={userId} label="the user id" />
        </dd>
        <dt>Password</dt>
        <dd>
          <code>{password}</code>
          <CopyButton text={password} label="the password" />
        </dd>
      </dl>
      <Text size="sm" mt="sm" mb={4}>
        Try it:
      </Text>
      <Group gap="xs" wrap="nowrap" align="flex-start">
        <pre className="credential-example">
          <code>{example}</code>
        </pre>
        <CopyButton text={example} label="the curl command" />
      </Group>
      <Group justify="flex-end" mt="sm">
        <Button variant="default" onClick={props.onDone}>
          Done
        </Button>
      </Group>
    </Paper>
  );
}

/** The credentials with when each was made and last used; on a phone each row stacks (profile.css). */
function CredentialTable(props: { credentials: readonly Credential[] }) {
  return (
    <Table className="credentials-table" verticalSpacing="sm" role="table">
      <Table.Caption className="visually-hidden">
        Your API credentials. Anything that uses one acts as you.
      </Table.Caption>
      <Table.Thead className="visually-hidden-below-sm">
        <Table.Tr role="row">
          <Table.Th scope="col" role="columnheader">
            User id
          </Table.Th>
          <Table.Th scope="col" role="columnheader">
            Created
          </Table.Th>
          <Table.Th scope="col" role="columnheader">
            Last used
          </Table.Th>
          <Table.Th scope="col" role="columnheader">
            <span className="visually-hidden">Actions</span>
          </Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {props.credentials.map((c) => (
          <CredentialRow key={c.userId} credential={c} />
        ))}
      </Table.Tbody>
    </Table>
  );
}

function CredentialRow(props: { credential: Credential }) {
  const { client } = usePortal();
  const queryClient = useQueryClient();
  const { credential } = props;
  const revoke = useAction(
    () => client.revokeCredential(credential.userId),
    () => {
      void queryClient.invalidateQueries({ queryKey: keys.credentials });
      notifications.show({
        color: 'teal',
        message: `Credential ${credential.userId} revoked: it no longer signs in.`,
      });
    },
  );
  return (
    <Table.Tr role="row">
      <Table.Th scope="row" role="rowheader" fw="normal" className="credential-id">
        <code>{credential.userId}</code>
      </Table.Th>
      <Table.Td role="cell" className="credential-time credential-created">
        <span className="cell-label">Created </span>
        <RelativeTime iso={credential.createTime} />
      </Table.Td>
      <Table.Td role="cell" className="credential-time credential-used">
        <span className="cell-label">Last used </span>
        {credential.lastUseTime === undefined ? (
          <Text span size="sm" c="dimmed">
            Never
          </Text>
        ) : (
          <RelativeTime iso={credential.lastUseTime} />
        )}
      </Table.Td>
      <Table.Td role="cell" className="credential-actions">
        <ConfirmButton
          label="Revoke"
          aria-label={`Revoke ${credential.userId}`}
          confirmLabel={`Revoke ${credential.userId}`}
          size="xs"
          variant="subtle"
          warning="Anything that uses this credential (a script, the CLI, a CI job) stops working at once."
          busy={revoke.busy}
          onConfirm={() => {
            revoke.run();
          }}
        />
        <FormError error={revoke.error} />
      </Table.Td>
    </Table.Tr>
  );
}
