/**
 * The portal's entry, loaded by index.html: Mantine (theme, modals, toasts), TanStack Query (the API's
 * answers, cached and polled) and TanStack Router (the page of the address).
 */
import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import './styles.css';
import { MantineProvider } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { asApiError } from '../../src/client/api-client.js';
import { router } from './portal/routes.js';
import { theme } from './portal/theme.js';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal (403, 404) will not change by asking again; a network failure may.
      retry: (count, error) => count < 2 && asApiError(error).httpStatus === 0,
      refetchOnWindowFocus: true,
    },
  },
});

const root = document.getElementById('root');
if (!root) throw new Error('the page has no #root element');
createRoot(root).render(
  <StrictMode>
    {/* The CSP allows no inline <style>: the variables and classes Mantine would inject are in styles.css. */}
    <MantineProvider
      theme={theme}
      defaultColorScheme="auto"
      withCssVariables={false}
      withGlobalClasses={false}
    >
      <QueryClientProvider client={queryClient}>
        <ModalsProvider>
          <Notifications position="bottom-right" />
          <RouterProvider router={router} />
        </ModalsProvider>
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
