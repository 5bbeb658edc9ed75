/** The props every environment tab gets, apart so that a tab need not import the page showing it. */
import type { Environment } from '../../../src/client/api-client.js';

/** What a tab of the environment page gets: the environment as last read, and a way to read it again. */
export interface EnvironmentTabProps {
  readonly environment: Environment;
  readonly account: string;
  readonly reload: () => void;
}
