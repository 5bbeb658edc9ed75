// Added to the starter for Atoll's framework suite: a page rendered per request that shows a shell variable.
import { env } from '$env/dynamic/private';
import type { PageServerLoad } from './$types';

export const load: PageServerLoad = () => ({ greeting: env.FW_GREETING ?? '(unset)' });
