/** The tabs of an account's pages, shared by the pages under `/accounts/{a}`. */
import { accountPage } from '../portal/router.js';
import { NavTabs } from '../ui/nav-tabs.js';

/** The account's pages as tabs. */
export function AccountNav(props: { account: string }) {
  const base = accountPage(props.account);
  return (
    <NavTabs
      label="Account pages"
      tabs={[
        { to: base, label: 'Applications' },
        { to: `${base}/events`, label: 'Event notifications' },
        { to: `${base}/members`, label: 'Members' },
      ]}
    />
  );
}
