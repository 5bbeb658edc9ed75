/** The tabs of an account's pages, shared by the pages under `/accounts/{a}`. */
import { Link, usePath } from '../portal/router.js';

/** The pages of an account, under `/accounts/{a}`: suffix and label. */
const ACCOUNT_PAGES: readonly { suffix: string; label: string }[] = [
  { suffix: '', label: 'Applications' },
  { suffix: '/events', label: 'Event notifications' },
  { suffix: '/members', label: 'Members' },
];

/** The account's pages as tabs; the current one is marked for screen readers too. */
export function AccountNav(props: { account: string }) {
  const path = usePath();
  const base = `/accounts/${encodeURIComponent(props.account)}`;
  return (
    <nav aria-label="Account pages" className="tabs">
      {ACCOUNT_PAGES.map((p) => {
        const to = `${base}${p.suffix}`;
        return (
          <Link key={p.suffix} to={to} aria-current={path === to ? 'page' : undefined}>
            {p.label}
          </Link>
        );
      })}
    </nav>
  );
}
