/** The portal's own small router over the History API: reading the path, moving, linking. */
import { useEffect, useState, type AnchorHTMLAttributes, type MouseEvent } from 'react';

/** Sent on window when the portal itself changes the address (history.pushState fires nothing). */
const NAVIGATED = 'atoll:navigated';

/**
 * The page's path. The portal's pages are real paths (`/accounts/my-team/apps/web`, the API's
 * resource names): the control plane answers each with index.html, so a reload or a shared link
 * opens the same page.
 */
export function usePath(): string {
  const [path, setPath] = useState(window.location.pathname);
  useEffect(() => {
    const update = () => {
      setPath(window.location.pathname);
    };
    window.addEventListener('popstate', update);
    window.addEventListener(NAVIGATED, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(NAVIGATED, update);
    };
  }, []);
  return path;
}

/** Opens a page of the portal without reloading it. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace === true) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.dispatchEvent(new Event(NAVIGATED));
  window.scrollTo(0, 0);
}

/**
 * A link to a page of the portal: a real `<a href>` (keyboard, middle click and "open in a new tab"
 * work) whose plain click navigates in place.
 */
export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  const { to, ...rest } = props;
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a {...rest} href={to} onClick={onClick} />;
}

/** The portal path of an API resource name (`accounts/a/apps/x` → `/accounts/a/apps/x`). */
export function pageOf(resourceName: string): string {
  return `/${resourceName}`;
}
