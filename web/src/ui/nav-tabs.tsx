/** Tabs that are links (an account's pages, an environment's): each tab has its own address. */
import { useLocation } from '@tanstack/react-router';
import { Link } from '../portal/router.js';

/**
 * The tabs as a named navigation of links; the current one is marked for screen readers too
 * (`aria-current`). On a narrow screen the row scrolls sideways.
 */
export function NavTabs(props: {
  label: string;
  tabs: readonly { to: string; label: string; /** Also current on pages under it. */ prefix?: boolean }[];
}) {
  const path = useLocation({ select: (l) => l.pathname.replace(/\/+$/, '') });
  return (
    <nav aria-label={props.label} className="nav-tabs">
      {props.tabs.map((tab) => {
        const current = path === tab.to || (tab.prefix === true && path.startsWith(`${tab.to}/`));
        return (
          <Link
            key={tab.to}
            to={tab.to}
            underline="never"
            // The router marks a link active on pages under it too; a tab is current only as said above.
            activeOptions={{ exact: tab.prefix !== true }}
            aria-current={current ? 'page' : undefined}
          >
            {tab.label}
          </Link>
        );
      })}
    </nav>
  );
}
