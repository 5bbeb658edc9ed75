/** Wire schemas of portal sign-in, sessions and password changes. */
import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from './common-schemas.js';

export const SignInBodySchema = Type.Object(
  {
    email: Type.String({ maxLength: 254, description: 'The email address of a person (not a service user)' }),
    password: Type.String({ maxLength: 1024 }),
  },
  { title: 'SignInRequest', additionalProperties: false },
);

export const SessionSchema = Type.Object(
  {
    user: Type.Object({ id: Type.String(), email: Type.String() }),
    csrfToken: Type.String({
      description: 'Send it as the X-CSRF-Token header with every change made with the session cookie',
    }),
    expireTime: Timestamp('The latest the session lives; it ends earlier when unused for the idle time'),
  },
  { title: 'Session' },
);
export type Session = Static<typeof SessionSchema>;

export const ChangePasswordBodySchema = Type.Object(
  {
    currentPassword: Type.String({ maxLength: 1024 }),
    newPassword: Type.String({ maxLength: 1024, description: '12 to 256 characters' }),
  },
  { title: 'ChangePasswordRequest', additionalProperties: false },
);
