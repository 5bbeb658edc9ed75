/** Bodies and answers of the operator endpoints on the admin Unix socket (`atoll admin …`). */
import { Type, type Static } from '@sinclair/typebox';

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

/** A running process as `GET /admin/nodes` lists it (docs/api.md "Admin socket"). */
export const AdminNodeSchema = Type.Object({
  id: Type.String(),
  roles: Type.Array(Type.String()),
  version: Type.String(),
  hostname: Type.String(),
  pid: Type.Integer(),
  /** `address:port` per listener (api, edge, edgeTls, health, …); keys a release does not know are kept. */
  addresses: Type.Record(Type.String(), Type.String()),
  capacity: Type.Record(Type.String(), Type.Number()),
  load: Type.Record(Type.String(), Type.Number()),
  startedAt: Type.String(),
  heartbeatAt: Type.String(),
  leaseExpiresAt: Type.String(),
  /** Whether the lease still held when the list was read (the process is alive, as far as the registry knows). */
  leaseCurrent: Type.Boolean(),
  generation: Type.Integer(),
});
export type AdminNode = Static<typeof AdminNodeSchema>;

export const AdminNodeListSchema = Type.Object({
  nodes: Type.Array(AdminNodeSchema),
  /** The id of the process that answered (the one serving this admin socket). */
  answeredBy: Type.String(),
  /** The answering process's clock when it read the list, so that "ago" is measured on one clock. */
  now: Type.String(),
});
export type AdminNodeList = Static<typeof AdminNodeListSchema>;
