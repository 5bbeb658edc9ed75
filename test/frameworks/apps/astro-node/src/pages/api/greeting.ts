// Added to the starter for Atoll's framework suite: an API route answering JSON per request.
import type { APIRoute } from 'astro';

export const prerender = false;

export const GET: APIRoute = () =>
	Response.json({ framework: 'astro-node', greeting: process.env.FW_GREETING ?? null });
