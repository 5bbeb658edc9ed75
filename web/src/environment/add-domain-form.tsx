/** Step 1 of a domain: its name, whether it is the main address or sends visitors to another domain. */
import { Button, Checkbox, Group, NativeSelect, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { useState, type SyntheticEvent } from 'react';
import type { DomainMapping } from '../../../src/client/api-client.js';
import { usePortal } from '../portal/portal-context.js';
import { fieldError, FormError } from '../ui/errors.js';
import { useAction } from '../ui/use-action.js';
import { redirectOf, replaceAndWait, requestsOf, type MappingRequest } from './domain-set.js';
import { notifications } from '@mantine/notifications';

/** A new domain, added to the set with the others sent back as they are. */
export function AddDomainForm(props: {
  environment: string;
  mappings: readonly DomainMapping[];
  onAdded: () => void;
}) {
  const { client } = usePortal();
  const [domain, setDomain] = useState('');
  const [redirect, setRedirect] = useState('');
  const [primary, setPrimary] = useState(false);
  // Where the new entry sits in the request: the API names its violations by that index.
  const [index, setIndex] = useState(0);
  const add = useAction(
    (set: readonly MappingRequest[]) => replaceAndWait(client, props.environment, set),
    () => {
      notifications.show({
        color: 'teal',
        title: `${domain.trim().toLowerCase()} added`,
        message: 'Next: create its DNS records, shown on its card.',
      });
      setDomain('');
      setRedirect('');
      setPrimary(false);
      props.onAdded();
    },
  );
  const kept = requestsOf(props.mappings);
  // A redirect goes to a domain that shows the environment itself: the API allows no chains.
  const targets = props.mappings.filter((m) => m.state !== 'DELETING' && redirectOf(m) === '');
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    // One main address per environment: choosing this one takes the mark off the others.
    const others = primary ? kept.map((m) => ({ ...m, primary: false })) : kept;
    setIndex(others.length);
    add.run([...others, { domain: domain.trim(), primary, destinationDomainMapping: redirect }]);
  };
  const field = (name: string) => `domainMappings[${String(index)}].${name}`;
  return (
    <Paper
      withBorder
      p="md"
      radius="md"
      component="form"
      onSubmit={submit}
      aria-labelledby="add-domain-heading"
    >
      <Stack gap="sm">
        <div>
          <Title order={3} size="h4" id="add-domain-heading">
            Add a domain
          </Title>
          <Text size="sm" c="dimmed">
            The page then shows the DNS records to create for it, and checks them.
          </Text>
        </div>
        <Group gap="sm" align="flex-start" wrap="wrap">
          <TextInput
            className="grow"
            id="new-domain"
            label="Domain"
            description="The address visitors type, without https://"
            placeholder="www.example.com"
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            value={domain}
            onChange={(e) => {
              setDomain(e.currentTarget.value);
            }}
            error={fieldError(add.error, field('domain'))}
          />
          {targets.length > 0 && (
            <NativeSelect
              className="grow"
              label="Visitors"
              description="What this domain does once it is active"
              value={redirect}
              onChange={(e) => {
                setRedirect(e.currentTarget.value);
                if (e.currentTarget.value !== '') setPrimary(false);
              }}
              data={[
                { value: '', label: 'See this environment' },
                ...targets.map((m) => ({ value: m.domain, label: `Are sent to ${m.domain}` })),
              ]}
              error={fieldError(add.error, field('destinationDomainMapping'))}
            />
          )}
        </Group>
        {redirect === '' && (
          <Checkbox
            checked={primary}
            onChange={(e) => {
              setPrimary(e.currentTarget.checked);
            }}
            label="Make this the main address"
            description="The environment's URL moves to this domain once it is active."
            error={fieldError(add.error, field('primary'))}
          />
        )}
        <FormError
          error={add.error}
          fields={[field('domain'), field('destinationDomainMapping'), field('primary')]}
        />
        <Group>
          <Button type="submit" loading={add.busy} leftSection={<IconPlus size={16} aria-hidden />}>
            Add domain
          </Button>
          {add.busy && (
            <Text size="sm" c="dimmed" role="status">
              Adding the domain and looking up its records…
            </Text>
          )}
        </Group>
      </Stack>
    </Paper>
  );
}
