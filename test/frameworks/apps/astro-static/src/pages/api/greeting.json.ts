// Added to the starter for Atoll's framework suite: an API route (a static endpoint, written when the site is built).
import type { APIRoute } from 'astro';

export const GET: APIRoute = () =>
	Response.json({ framework: 'astro-static', greeting: process.env.FW_GREETING ?? null });
