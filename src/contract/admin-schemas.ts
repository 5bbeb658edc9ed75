/** Bodies of the operator endpoints on the admin Unix socket (`atoll admin …`). */
import { Type } from '@sinclair/typebox';

export const AdminCreateAccountBodySchema = Type.Object(
  {
    account: Type.String(),
    ownerEmail: Type.Optional(Type.String()),
    ownerPassword: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

export const AdminCreateUserBodySchema = Type.Object(
  { email: Type.String(), password: Type.Optional(Type.String()) },
  { additionalProperties: false },
);

export const AdminAddMemberBodySchema = Type.Object(
  { account: Type.String(), email: Type.String(), role: Type.String() },
  { additionalProperties: false },
);

export const AdminGenerateCredentialsBodySchema = Type.Object(
  { account: Type.String(), email: Type.Optional(Type.String()) },
  { additionalProperties: false },
);

export const AdminListCredentialsQuerySchema = Type.Object({
  account: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  pageSize: Type.Optional(Type.Integer({ minimum: 0, maximum: 200 })),
  pageToken: Type.Optional(Type.String()),
});
