/** The signed-in portal (client, session, accounts) as React context: pages reach it without props. */
import { createContext, useContext } from 'react';
import type { Account, ApiClient, Session } from '../../../src/client/api-client.js';

/** What every page of a signed-in user needs: the client, the session and the user's accounts. */
export interface Portal {
  readonly client: ApiClient;
  readonly session: Session;
  readonly accounts: readonly Account[];
  /** Reads the user's accounts and roles again (after the user changed its own membership). */
  readonly reloadAccounts: () => void;
}

export const PortalContext = createContext<Portal | undefined>(undefined);

export function usePortal(): Portal {
  const portal = useContext(PortalContext);
  if (portal === undefined) throw new Error('usePortal outside a signed-in page');
  return portal;
}

/** The caller's account `accountId`, or undefined when the user is not a member. */
export function useAccount(accountId: string): Account | undefined {
  return usePortal().accounts.find((a) => a.accountId === accountId);
}
