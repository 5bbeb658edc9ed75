/**
 * The environment page's Domains tab: each custom domain as a wizard (added, the DNS records to
 * create, verified and live with its certificate), and a form to add one.
 */
import { Stack, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useAccount, usePortal } from '../portal/portal-context.js';
import { domainMappingsQuery, keys } from '../portal/queries.js';
import { LoadError } from '../ui/errors.js';
import { useAction } from '../ui/use-action.js';
import { AddDomainForm } from './add-domain-form.js';
import { DomainCard } from './domain-card.js';
import { replaceAndWait, type MappingRequest } from './domain-set.js';
import { useEnvironmentTab } from './environment-tab-props.js';
import { notifications } from '@mantine/notifications';

/**
 * The environment's domains, read every second while one is being checked, so each card's steps
 * move on by themselves as the DNS records show up.
 */
export function EnvironmentDomains() {
  const props = useEnvironmentTab();
  const { client } = usePortal();
  const queryClient = useQueryClient();
  const { environment } = props;
  const canChange = useAccount(props.account)?.role !== 'viewer';
  const mappings = useQuery(domainMappingsQuery(client, environment.name));
  const list = mappings.data;
  const onChanged = () => {
    void queryClient.invalidateQueries({ queryKey: keys.domainMappings(environment.name) });
    props.reload();
  };
  // One change of the set at a time; its refusal shows on the card that asked for it.
  const [origin, setOrigin] = useState<string>();
  const change = useAction(
    async (set: readonly MappingRequest[], done: string) => {
      await replaceAndWait(client, environment.name, set);
      return done;
    },
    (done) => {
      notifications.show({ color: 'teal', message: done });
      onChanged();
    },
  );

  return (
    <Stack gap="md" component="section" aria-labelledby="domains-heading" className="domains-tab">
      <div>
        <Title order={2} size="h3" id="domains-heading">
          Domains
        </Title>
        <Text size="sm" c="dimmed">
          Serve this environment at your own domain names. Each takes three steps: add it, create its DNS
          records, verify them. A certificate for HTTPS follows on its own.
        </Text>
      </div>
      <LoadError error={mappings.error} />
      {canChange && list !== undefined && (
        <AddDomainForm environment={environment.name} mappings={list} onAdded={onChanged} />
      )}
      {list === undefined ? (
        mappings.error === null && <Text c="dimmed">Loading domains…</Text>
      ) : list.length === 0 ? (
        <Text c="dimmed">
          No domains yet.{' '}
          {canChange
            ? 'Add one above: the page then shows the DNS records to create and checks them for you.'
            : 'Once a developer or owner adds one, its DNS records and state show here.'}
        </Text>
      ) : (
        list.map((m) => (
          <DomainCard
            key={m.name}
            mapping={m}
            all={list}
            environment={environment.name}
            canChange={canChange}
            changing={change.busy}
            changeError={origin === m.name ? change.error : undefined}
            onReplace={(set, done) => {
              setOrigin(m.name);
              change.run(set, done);
            }}
          />
        ))
      )}
      {!canChange && (
        <Text size="sm" c="dimmed">
          You can see the domains; adding, verifying and changing them needs a developer or owner.
        </Text>
      )}
    </Stack>
  );
}
