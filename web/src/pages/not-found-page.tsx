/** What an address that is no page of the portal shows. */
import { Stack, Text, Title } from '@mantine/core';
import { useLocation } from '@tanstack/react-router';
import { Link } from '../portal/router.js';
import { usePageTitle } from '../ui/page-title.js';

export function NotFoundPage() {
  const path = useLocation({ select: (l) => l.pathname });
  usePageTitle('Page not found');
  return (
    <Stack gap="sm" py="xl">
      <Title order={1}>Page not found</Title>
      <Text>
        There is no page at <code>{path}</code>. <Link to="/">Go to your applications</Link>.
      </Text>
    </Stack>
  );
}
