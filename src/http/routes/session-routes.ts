/**
 * The portal's sign-in, session, sign-out and password change: the only routes that authenticate by
 * password or cookie.
 */
import { Type } from '@sinclair/typebox';
import { ChangePasswordBodySchema, SessionSchema, SignInBodySchema } from '../../contract/session-schemas.js';
import { AtollError } from '../../domain/error-catalogue.js';
import type { ApiServices } from '../api-dependencies.js';
import { principalOf, responses, type ApiInstance } from '../api-instance.js';
import { SESSION_COOKIE, sessionTokenOf } from '../request-auth.js';

const tags = ['Portal sessions'];

export interface SessionCookieOptions {
  /** Set the cookie's Secure attribute (the public URL is https). */
  readonly secure: boolean;
  readonly maxAgeMs: number;
}

/** The cookie's attributes, the same when it is set and when it is cleared (else browsers keep it). */
function cookieAttributes(options: SessionCookieOptions) {
  return { path: '/', httpOnly: true, sameSite: 'strict', secure: options.secure } as const;
}

/**
 * Sign-in and the current session: these authenticate by email and password or by the cookie
 * itself, so they sit outside the scope that requires credentials.
 */
export function registerSessionRoutes(
  app: ApiInstance,
  services: ApiServices,
  options: SessionCookieOptions,
): void {
  app.post(
    '/v1/sessions',
    {
      schema: {
        tags,
        summary: 'Sign in to the portal with email and password',
        description:
          'Sets the HttpOnly session cookie and answers the CSRF token to send as X-CSRF-Token with every change.',
        body: SignInBodySchema,
        response: responses({ 200: SessionSchema }),
        security: [],
      },
    },
    async (request, reply) => {
      const { token, view } = await services.sessions.signIn(
        request.body.email,
        request.body.password,
        request.ip,
      );
      void reply.setCookie(SESSION_COOKIE, token, {
        ...cookieAttributes(options),
        maxAge: Math.floor(options.maxAgeMs / 1000),
      });
      return view;
    },
  );
  app.get(
    '/v1/sessions/current',
    {
      schema: {
        tags,
        summary: 'The signed-in user and the CSRF token of the session cookie',
        response: responses({ 200: SessionSchema }),
        security: [],
      },
    },
    async (request) => {
      const token = sessionTokenOf(request);
      if (token === undefined) throw new AtollError('SESSION_INVALID', 'no session cookie: sign in first');
      return services.sessions.current(token);
    },
  );
}

/** Sign-out and password change, for a caller already authenticated (cookie with CSRF token, or Basic). */
export function registerSignedInRoutes(
  app: ApiInstance,
  services: ApiServices,
  options: SessionCookieOptions,
): void {
  app.delete(
    '/v1/sessions/current',
    {
      schema: {
        tags,
        summary: 'Sign out: the session ends and its cookie is cleared (204)',
        response: responses({ 204: Type.Null() }),
      },
    },
    async (request, reply) => {
      await services.sessions.signOut(principalOf(request));
      void reply.clearCookie(SESSION_COOKIE, cookieAttributes(options));
      return reply.code(204).send(null);
    },
  );
  app.post(
    '/v1/users/me::changePassword',
    {
      schema: {
        tags,
        summary: "Change the caller's portal password (204); the caller's other sessions end",
        body: ChangePasswordBodySchema,
        response: responses({ 204: Type.Null() }),
      },
    },
    async (request, reply) => {
      await services.sessions.changePassword(
        principalOf(request),
        request.body.currentPassword,
        request.body.newPassword,
        request.ip,
      );
      return reply.code(204).send(null);
    },
  );
}
