/**
 * Links and moves between the portal's pages, over TanStack Router (src/portal/routes.tsx holds the
 * route tree). Pages name pages by path, which follows the API's resource names.
 */
import { Anchor, type AnchorProps } from '@mantine/core';
import { createLink, useNavigate } from '@tanstack/react-router';
import { forwardRef, useCallback, type AnchorHTMLAttributes } from 'react';

const AnchorLink = forwardRef<HTMLAnchorElement, AnchorProps & AnchorHTMLAttributes<HTMLAnchorElement>>(
  function AnchorLink(props, ref) {
    return <Anchor ref={ref} {...props} />;
  },
);

/**
 * A link to a page of the portal: a real `<a href>` (keyboard, middle click and "open in a new tab"
 * work) whose plain click navigates in place, styled as the component system's anchor.
 */
export const Link = createLink(AnchorLink);

/** Opens a page of the portal by its path, without reloading. */
export function useGo(): (to: string, options?: { replace?: boolean }) => void {
  const navigate = useNavigate();
  return useCallback(
    (to: string, options?: { replace?: boolean }) => {
      void navigate({ to, replace: options?.replace === true });
    },
    [navigate],
  );
}

/** The portal path of an API resource name (`accounts/a/apps/x` → `/accounts/a/apps/x`). */
export function pageOf(resourceName: string): string {
  return `/${resourceName.split('/').map(encodeURIComponent).join('/')}`;
}

/** The portal path of an account's page. */
export function accountPage(account: string): string {
  return `/accounts/${encodeURIComponent(account)}`;
}

/** The portal path of an application's page. */
export function appPage(account: string, app: string): string {
  return `${accountPage(account)}/apps/${encodeURIComponent(app)}`;
}
