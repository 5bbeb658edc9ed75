// Added to the starter for Atoll's framework suite: an API route answering JSON per request.
import { json } from '@sveltejs/kit';
import { env } from '$env/dynamic/private';

export const GET = () => json({ framework: 'sveltekit-node', greeting: env.FW_GREETING ?? null });
