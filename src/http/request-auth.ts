/** Who is calling: Basic credentials or the portal's session cookie with its CSRF token. */
import type { FastifyRequest } from 'fastify';
import { unauthenticated, type Principal } from '../services/access/auth-service.js';
import type { ApiServices } from './api-dependencies.js';
import { parseBasicAuthorization } from './basic-credentials.js';

/** The portal's session cookie (HttpOnly, SameSite=Strict; Secure when the public URL is https). */
export const SESSION_COOKIE = 'atoll_session';
export const CSRF_HEADER = 'x-csrf-token';
/** Methods that change nothing (RFC 9110 §9.2.1) need no CSRF token. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The session token of the request's cookie, if it sent one. */
export function sessionTokenOf(request: FastifyRequest): string | undefined {
  const token = request.cookies[SESSION_COOKIE];
  return token === undefined || token === '' ? undefined : token;
}

/**
 * Who calls: Basic credentials when the request sends them (scripts, the CLI), else the
 * portal's session cookie. A change made with the cookie must carry the session's CSRF token:
 * a cross-site page can make the browser send the cookie, but cannot read the token.
 */
export async function authenticateRequest(
  request: FastifyRequest,
  services: Pick<ApiServices, 'auth' | 'sessions'>,
): Promise<Principal> {
  const basic = parseBasicAuthorization(request.headers.authorization);
  if (basic) return services.auth.authenticate(basic.user, basic.password, request.ip);
  const token = sessionTokenOf(request);
  if (token === undefined) throw unauthenticated();
  const principal = await services.sessions.authenticate(token);
  if (!SAFE_METHODS.has(request.method)) {
    const header = request.headers[CSRF_HEADER];
    services.sessions.checkCsrf(token, typeof header === 'string' ? header : undefined);
  }
  return principal;
}
