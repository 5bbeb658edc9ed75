/** What every tab of the environment page gets, apart so that a tab need not import the page showing it. */
import { createContext, useContext } from 'react';
import type { Environment } from '../../../src/client/api-client.js';

/** What a tab of the environment page gets: the environment as last read, and a way to read it again. */
export interface EnvironmentTabProps {
  readonly environment: Environment;
  readonly account: string;
  readonly reload: () => void;
}

export const EnvironmentTabContext = createContext<EnvironmentTabProps | undefined>(undefined);

/** The environment the tab shows, given by the environment page around it. */
export function useEnvironmentTab(): EnvironmentTabProps {
  const tab = useContext(EnvironmentTabContext);
  if (tab === undefined) throw new Error('useEnvironmentTab outside the environment page');
  return tab;
}
