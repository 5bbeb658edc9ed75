/**
 * One domain of the Domains tab as a three-step wizard: added, the DNS records to create, verified.
 * Below the steps, what the domain does (main address, or a redirect) and its removal.
 */
import { Badge, Button, Divider, Group, NativeSelect, Paper, Stack, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import {
  IconAlertTriangle,
  IconCheck,
  IconChevronDown,
  IconChevronUp,
  IconLoader2,
} from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode, type SyntheticEvent } from 'react';
import type { ApiError, DomainMapping } from '../../../src/client/api-client.js';
import { usePortal } from '../portal/portal-context.js';
import { keys } from '../portal/queries.js';
import { ConfirmButton } from '../ui/confirm-button.js';
import { FormError } from '../ui/errors.js';
import { RelativeTime } from '../ui/time.js';
import { useAction } from '../ui/use-action.js';
import { ReasonedButton } from '../ui/reasoned-button.js';
import { domainProgress, formatDay, isVerified, pointsAtEdge, type Tone } from './domain-progress.js';
import { DomainRecords } from './domain-records.js';
import { redirectOf, requestsOf, type MappingRequest } from './domain-set.js';
import './domains.css';

const TONE_COLOURS: Readonly<Record<Tone, string>> = {
  waiting: 'orange',
  working: 'blue',
  done: 'teal',
  problem: 'red',
};

type StepStatus = 'done' | 'current' | 'todo' | 'problem';

export interface DomainCardProps {
  readonly mapping: DomainMapping;
  readonly all: readonly DomainMapping[];
  readonly environment: string;
  readonly canChange: boolean;
  /** A change of the set is running (from any card): one at a time. */
  readonly changing: boolean;
  /** The refusal of the last change of the set, when this card started it. */
  readonly changeError: ApiError | undefined;
  readonly onReplace: (set: readonly MappingRequest[], done: string) => void;
}

export function DomainCard(props: DomainCardProps) {
  const { mapping } = props;
  const progress = domainProgress(mapping);
  const headingId = `domain-${mapping.domain}`;
  const redirect = redirectOf(mapping);
  const verified = isVerified(mapping);
  const recordsDone = verified && pointsAtEdge(mapping);
  const active = mapping.state === 'ACTIVE';
  const settled = mapping.state !== 'CREATING' && mapping.state !== 'DELETING';

  return (
    <Paper withBorder p="md" radius="md" component="article" aria-labelledby={headingId}>
      <Stack gap="md">
        <Group justify="space-between" wrap="wrap" gap="xs" align="flex-start">
          <Title order={3} size="h4" id={headingId} className="domain-name">
            {mapping.domain}
          </Title>
          <Group gap="xs" wrap="wrap">
            <Badge variant="dot" color={TONE_COLOURS[progress.tone]} className="domain-badge">
              {progress.badge}
            </Badge>
            {mapping.primary && (
              <Badge variant="default" className="domain-badge">
                Main address
              </Badge>
            )}
            {redirect !== '' && (
              <Badge variant="default" className="domain-badge" title={`Sends visitors to ${redirect}`}>
                Sends visitors to {redirect}
              </Badge>
            )}
          </Group>
        </Group>
        <ol className="domain-steps">
          <Step number={1} title="Add the domain" status="done">
            <Text size="sm" c="dimmed">
              Added <RelativeTime iso={mapping.createTime} />.
            </Text>
          </Step>
          <Step
            number={2}
            title="Create the DNS records"
            status={recordsDone ? 'done' : mapping.state === 'FAILED' ? 'todo' : 'current'}
          >
            <RecordsStep mapping={mapping} collapsed={active} />
          </Step>
          <Step
            number={3}
            title="Verify"
            status={
              active
                ? progress.tone === 'problem'
                  ? 'problem'
                  : 'done'
                : mapping.state === 'FAILED'
                  ? 'problem'
                  : 'todo'
            }
          >
            <VerifyStep
              mapping={mapping}
              environment={props.environment}
              canCheck={props.canChange && settled && mapping.state !== 'FAILED'}
            />
          </Step>
        </ol>
        {props.canChange && settled && <DomainSettings {...props} />}
      </Stack>
    </Paper>
  );
}

function Step(props: { number: number; title: string; status: StepStatus; children: ReactNode }) {
  const said = { done: 'done', current: 'to do now', todo: 'not yet', problem: 'needs attention' }[
    props.status
  ];
  return (
    <li className="domain-step" data-status={props.status}>
      <span className="domain-step-marker" aria-hidden>
        {props.status === 'done' ? <IconCheck size={16} /> : props.status === 'problem' ? '!' : props.number}
      </span>
      <div>
        <h4>
          <span className="visually-hidden">Step {props.number}: </span>
          {props.title}
          <span className="visually-hidden"> ({said})</span>
        </h4>
        {props.children}
      </div>
    </li>
  );
}

/**
 * The records to create; once the domain is active they are done with, so they fold away behind a
 * button (the TXT record can stay or go: the domain stays verified).
 */
function RecordsStep(props: { mapping: DomainMapping; collapsed: boolean }) {
  const { mapping } = props;
  const [open, { toggle }] = useDisclosure(false);
  const tableId = `records-${mapping.domain}`;
  if (props.collapsed)
    return (
      <Stack gap="xs" align="flex-start">
        <Text size="sm" c="dimmed">
          The records are in place. Keep the{' '}
          {mapping.edgeRecords.length === 0 ? 'domain pointing here' : 'records that point the domain here'};
          the TXT record may be removed.
        </Text>
        <Button
          variant="subtle"
          size="compact-sm"
          onClick={toggle}
          aria-expanded={open}
          aria-controls={open ? tableId : undefined}
          rightSection={
            open ? <IconChevronUp size={14} aria-hidden /> : <IconChevronDown size={14} aria-hidden />
          }
        >
          {open ? 'Hide the DNS records' : 'Show the DNS records'}
        </Button>
        {open && <DomainRecords mapping={mapping} id={tableId} />}
      </Stack>
    );
  return (
    <Stack gap="xs">
      <Text size="sm">
        At the company where the domain&apos;s DNS is managed (often where you bought it), create{' '}
        {mapping.edgeRecords.length === 0 ? 'this record' : 'these records'}:
      </Text>
      <DomainRecords mapping={mapping} id={tableId} />
      <PointingNote mapping={mapping} />
    </Stack>
  );
}

/** When there is no record that points the domain here to show, why, and what to do instead. */
function PointingNote(props: { mapping: DomainMapping }) {
  const { mapping } = props;
  if (mapping.edgeRecords.length > 0) return null;
  if (mapping.dnsCheck.result === 'SKIPPED')
    return (
      <Text size="xs" c="dimmed">
        This platform has no public address configured, so it does not check where the domain points: point it
        at the server that hosts this environment, as the platform&apos;s operator tells you.
      </Text>
    );
  if (mapping.dnsCheck.result === 'PASSED') return null;
  return (
    <Text size="xs" c="dimmed">
      This platform offers only a host name to point at (a CNAME record), which a root domain such as{' '}
      {mapping.domain} cannot have: ask the platform&apos;s operator for its IP addresses, or use a name such
      as www.{mapping.domain} instead.
    </Text>
  );
}

/** The live state in words, what to do when something is missing, and the button that looks again now. */
function VerifyStep(props: { mapping: DomainMapping; environment: string; canCheck: boolean }) {
  const { client } = usePortal();
  const queryClient = useQueryClient();
  const { mapping } = props;
  const progress = domainProgress(mapping);
  const verified = isVerified(mapping);
  const verb = verified ? 'revalidate' : 'verifyTxtRecord';
  const [checked, setChecked] = useState<string>();
  const check = useAction(
    () => client.domainMappingAction(mapping.name, verb),
    (answer) => {
      setChecked(
        answer.state === 'ACTIVE' ? 'Checked: all records found.' : 'Checked: not everything is found yet.',
      );
      void queryClient.invalidateQueries({ queryKey: keys.domainMappings(props.environment) });
      // An active primary domain moves the environment's URL.
      void queryClient.invalidateQueries({ queryKey: keys.environment(props.environment) });
    },
  );
  const { certificate } = mapping;
  const working =
    progress.tone === 'working' || (mapping.state === 'ACTIVE' && certificate.state === 'PENDING');
  const lastLook = verified ? mapping.dnsCheck.checkTime : mapping.txtRecord.checkTime;
  return (
    <Stack gap="xs">
      <Group gap="xs" wrap="nowrap" align="flex-start">
        {working ? (
          <IconLoader2 size={18} aria-hidden className="spin" />
        ) : progress.tone === 'done' ? (
          <IconCheck size={18} aria-hidden color="var(--mantine-color-teal-text)" />
        ) : progress.tone === 'problem' ? (
          <IconAlertTriangle size={18} aria-hidden color="var(--mantine-color-red-text)" />
        ) : null}
        <Text size="sm" fw={600} role="status">
          {progress.headline}
        </Text>
      </Group>
      {progress.help !== '' && <Text size="sm">{progress.help}</Text>}
      <CertificateLine mapping={mapping} />
      {lastLook !== undefined && mapping.state !== 'ACTIVE' && (
        <Text size="xs" c="dimmed">
          Last looked up <RelativeTime iso={lastLook} />.
        </Text>
      )}
      {props.canCheck && (
        <Group gap="sm" wrap="wrap">
          <Button
            size="sm"
            variant={mapping.state === 'ACTIVE' ? 'default' : 'filled'}
            loading={check.busy}
            onClick={() => {
              setChecked(undefined);
              check.run();
            }}
          >
            {verified ? 'Check again' : 'Verify'}
          </Button>
          {checked !== undefined && !check.busy && (
            <Text size="sm" c="dimmed" role="status">
              {checked}
            </Text>
          )}
        </Group>
      )}
      <FormError error={check.error} />
    </Stack>
  );
}

/** The certificate's state and end date after a failed issuance or renewal, with the next try. */
function CertificateLine(props: { mapping: DomainMapping }) {
  const { certificate, state } = props.mapping;
  if (state !== 'ACTIVE' || certificate.state === 'NOT_CONFIGURED') return null;
  // An issued certificate's end date is in the headline already; this adds it after a failure.
  if (
    certificate.nextAttemptTime === undefined &&
    (certificate.state === 'ISSUED' || certificate.expireTime === undefined)
  )
    return null;
  return (
    <dl className="facts">
      <dt>Certificate</dt>
      <dd>
        {certificate.state === 'ISSUED'
          ? 'Issued'
          : certificate.state === 'PENDING'
            ? 'Being issued'
            : 'Not issued'}
        {certificate.expireTime !== undefined && `, valid until ${formatDay(certificate.expireTime)}`}
        {certificate.nextAttemptTime !== undefined && (
          <>
            ; next try <RelativeTime iso={certificate.nextAttemptTime} />
          </>
        )}
      </dd>
    </dl>
  );
}

/** Main address, redirect and removal: the changes of one domain, for developers and owners. */
function DomainSettings(props: DomainCardProps) {
  const { client } = usePortal();
  const queryClient = useQueryClient();
  const { mapping, all } = props;
  const redirect = redirectOf(mapping);
  const primary = useAction(
    () => client.domainMappingAction(mapping.name, 'markPrimary'),
    () => {
      void queryClient.invalidateQueries({ queryKey: keys.domainMappings(props.environment) });
      void queryClient.invalidateQueries({ queryKey: keys.environment(props.environment) });
    },
  );
  const failed = mapping.state === 'FAILED';
  const primaryReason =
    redirect !== ''
      ? 'A domain that sends visitors elsewhere cannot be the main address: choose “Show this environment” first.'
      : undefined;
  const reasonId = `primary-reason-${mapping.domain}`;
  const others = all.filter((m) => m.name !== mapping.name);
  return (
    <>
      <Divider />
      <Stack gap="sm">
        <Title order={4} size="h5">
          What {mapping.domain} does
        </Title>
        {!failed && (
          <>
            {mapping.primary ? (
              <Text size="sm">
                This is the main address: the environment&apos;s URL uses it
                {mapping.state === 'ACTIVE' ? '' : ' once it is active'}.
              </Text>
            ) : (
              <Group gap="sm" wrap="wrap">
                <ReasonedButton
                  size="sm"
                  variant="default"
                  loading={primary.busy}
                  disabledReason={primaryReason}
                  reasonId={reasonId}
                  onClick={primary.run}
                >
                  Make this the main address
                </ReasonedButton>
                <Text size="xs" c="dimmed" className="grow">
                  The environment&apos;s URL moves to {mapping.domain} once it is active.
                </Text>
              </Group>
            )}
            <FormError error={primary.error} />
            {!mapping.primary && others.length > 0 && (
              <RedirectForm key={redirect} {...props} current={redirect} />
            )}
          </>
        )}
        <Group>
          <ConfirmButton
            label="Remove domain"
            confirmLabel={`Remove ${mapping.domain}`}
            warning={`${mapping.domain} stops serving this environment once its route and certificate are gone. Its DNS records can then be deleted at your DNS provider.`}
            busy={props.changing}
            onConfirm={() => {
              props.onReplace(requestsOf(others), `${mapping.domain} removed.`);
            }}
          />
        </Group>
        <FormError error={props.changeError} />
      </Stack>
    </>
  );
}

/** Serve the environment here, or send visitors on (301) to another domain of the set. */
function RedirectForm(props: DomainCardProps & { current: string }) {
  const { mapping } = props;
  const [target, setTarget] = useState(props.current);
  const choices = props.all.filter(
    (m) => m.name !== mapping.name && m.state !== 'DELETING' && redirectOf(m) === '',
  );
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    props.onReplace(
      requestsOf(props.all).map((m) =>
        m.domain === mapping.domain ? { ...m, destinationDomainMapping: target } : m,
      ),
      target === ''
        ? `${mapping.domain} shows this environment.`
        : `${mapping.domain} sends visitors to ${target}.`,
    );
  };
  return (
    <form onSubmit={submit} className="domain-settings">
      <NativeSelect
        className="grow"
        label={`When visitors open ${mapping.domain}`}
        value={target}
        onChange={(e) => {
          setTarget(e.currentTarget.value);
        }}
        data={[
          { value: '', label: 'Show this environment' },
          ...choices.map((m) => ({ value: m.domain, label: `Send visitors to ${m.domain}` })),
        ]}
      />
      {target !== props.current && (
        <Button type="submit" loading={props.changing}>
          Save
        </Button>
      )}
    </form>
  );
}
