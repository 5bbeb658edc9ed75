/**
 * Wire schemas of accounts, members, the caller and API credentials: they validate requests, type the
 * client and make the Swagger document.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from './common-schemas.js';

export const AccountSchema = Type.Object(
  {
    name: Type.String({ description: 'accounts/{account}' }),
    accountId: Type.String({ description: 'The {account} path segment' }),
    uid: Type.String({ description: "The account's UUID (account_id of the report API)" }),
    role: Type.String({ description: "The caller's role: owner, developer or viewer" }),
    createTime: Timestamp('When the account was created'),
  },
  { title: 'Account' },
);
export type Account = Static<typeof AccountSchema>;

export const ListAccountsResponseSchema = Type.Object(
  { accounts: Type.Array(AccountSchema), nextPageToken: Type.String() },
  { title: 'ListAccountsResponse' },
);
export type ListAccountsResponse = Static<typeof ListAccountsResponseSchema>;

export const MemberSchema = Type.Object(
  {
    email: Type.String({
      description: 'Email of the user (service users have a generated address under service.invalid)',
    }),
    role: Type.String({ description: 'owner, developer or viewer' }),
    userKind: Type.String({ description: 'person or service' }),
    createTime: Timestamp('When the user joined the account'),
  },
  { title: 'Member' },
);
export type Member = Static<typeof MemberSchema>;

export const ListMembersResponseSchema = Type.Object(
  { members: Type.Array(MemberSchema), nextPageToken: Type.String() },
  { title: 'ListMembersResponse' },
);

export const AddMemberBodySchema = Type.Object(
  {
    email: Type.String({ description: 'Email of an existing user' }),
    role: Type.String({ description: 'owner, developer or viewer' }),
  },
  { additionalProperties: false, title: 'AddMemberBody' },
);

export const UpdateMemberBodySchema = Type.Object(
  { role: Type.String({ description: 'owner, developer or viewer' }) },
  { additionalProperties: false, title: 'UpdateMemberBody' },
);

export const CallerSchema = Type.Object(
  {
    id: Type.String({ description: "The user's id" }),
    email: Type.String({
      description: 'Service users have a generated svc-…@{account}.service.invalid address',
    }),
    kind: Type.String({ description: 'person or service' }),
  },
  { title: 'Caller' },
);
export type Caller = Static<typeof CallerSchema>;

export const CredentialSchema = Type.Object(
  {
    name: Type.String({ description: 'users/me/credentials/{userId}' }),
    userId: Type.String({ description: 'The API user id: the Basic auth user name' }),
    createTime: Timestamp('When the credential was generated'),
    lastUseTime: Type.Optional(Timestamp('Last authenticated use, to the minute; absent if never used')),
  },
  { title: 'Credential' },
);
export type Credential = Static<typeof CredentialSchema>;

export const GeneratedCredentialSchema = Type.Object(
  {
    name: Type.String(),
    userId: Type.String({ description: 'The API user id: the Basic auth user name' }),
    password: Type.String({ description: 'The API password; shown in this answer only' }),
    createTime: Timestamp('When the credential was generated'),
  },
  { title: 'GeneratedCredential' },
);
export type GeneratedCredential = Static<typeof GeneratedCredentialSchema>;

export const ListCredentialsResponseSchema = Type.Object(
  { credentials: Type.Array(CredentialSchema), nextPageToken: Type.String() },
  { title: 'ListCredentialsResponse' },
);
