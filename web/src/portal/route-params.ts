/** A route's params, apart so that the pages reading them need not import the route table. */
import { useParams } from '@tanstack/react-router';

/** The parts of a page's path, by name (`$account` in a route path is `account`); '' where absent. */
export interface Params {
  readonly account: string;
  readonly app: string;
  readonly env: string;
  readonly build: string;
}

/** The params of the page's path; a part the path lacks reads as ''. */
export function useRouteParams(): Params {
  const params: Partial<Record<keyof Params, string>> = useParams({ strict: false });
  return {
    account: params.account ?? '',
    app: params.app ?? '',
    env: params.env ?? '',
    build: params.build ?? '',
  };
}
