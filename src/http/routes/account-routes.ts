/**
 * Accounts, members, the caller (`/v1/users/me`) and API credentials: thin routes over the access services.
 */
import { EmptySchema, PageQuerySchema } from '../../contract/common-schemas.js';
import {
  AccountSchema,
  AddMemberBodySchema,
  CallerSchema,
  GeneratedCredentialSchema,
  ListAccountsResponseSchema,
  ListCredentialsResponseSchema,
  ListMembersResponseSchema,
  MemberSchema,
  UpdateMemberBodySchema,
} from '../../contract/account-schemas.js';
import type { ApiServices } from '../api-dependencies.js';
import { ACCOUNT_PATH, ID, principalOf, responses, type ApiInstance } from '../api-instance.js';
import {
  AccountParamsSchema,
  CredentialParamsSchema,
  MemberParamsSchema,
} from '../../contract/path-schemas.js';

export function registerAccountRoutes(app: ApiInstance, services: ApiServices): void {
  registerAccounts(app, services);
  registerMembers(app, services);
  registerCallerAndCredentials(app, services);
}

function registerAccounts(app: ApiInstance, services: ApiServices): void {
  app.get(
    '/v1/accounts',
    {
      schema: {
        tags: ['Accounts'],
        summary: "List the caller's accounts",
        querystring: PageQuerySchema,
        response: responses({ 200: ListAccountsResponseSchema }),
      },
    },
    (request) =>
      services.accounts.listForCaller(principalOf(request), request.query.pageSize, request.query.pageToken),
  );

  app.get(
    ACCOUNT_PATH,
    {
      schema: {
        tags: ['Accounts'],
        summary: "Get an account and the caller's role",
        params: AccountParamsSchema,
        response: responses({ 200: AccountSchema }),
      },
    },
    (request) => services.accounts.getForCaller(principalOf(request), request.params.account),
  );
}

function registerMembers(app: ApiInstance, services: ApiServices): void {
  const members = `${ACCOUNT_PATH}/members`;
  const member = `${members}/:email${ID}`;
  const memberTags = ['Members'];
  app.get(
    members,
    {
      schema: {
        tags: memberTags,
        summary: 'List the members (owners)',
        params: AccountParamsSchema,
        querystring: PageQuerySchema,
        response: responses({ 200: ListMembersResponseSchema }),
      },
    },
    (request) =>
      services.members.list(
        principalOf(request),
        request.params.account,
        request.query.pageSize,
        request.query.pageToken,
      ),
  );
  app.post(
    members,
    {
      schema: {
        tags: memberTags,
        summary: 'Add a member (owners)',
        params: AccountParamsSchema,
        body: AddMemberBodySchema,
        response: responses({ 200: MemberSchema }),
      },
    },
    (request) =>
      services.members.add(
        principalOf(request),
        request.params.account,
        request.body.email,
        request.body.role,
      ),
  );
  app.patch(
    member,
    {
      schema: {
        tags: memberTags,
        summary: "Change a member's role (owners)",
        params: MemberParamsSchema,
        body: UpdateMemberBodySchema,
        response: responses({ 200: MemberSchema }),
      },
    },
    (request) =>
      services.members.updateRole(
        principalOf(request),
        request.params.account,
        request.params.email,
        request.body.role,
      ),
  );
  app.delete(
    member,
    {
      schema: {
        tags: memberTags,
        summary: 'Remove a member (owners)',
        params: MemberParamsSchema,
        response: responses({ 200: EmptySchema }),
      },
    },
    async (request) => {
      await services.members.remove(principalOf(request), request.params.account, request.params.email);
      return {};
    },
  );
}

/** The caller and the caller's API credentials, under /v1/users/me. */
function registerCallerAndCredentials(app: ApiInstance, services: ApiServices): void {
  app.get(
    '/v1/users/me',
    {
      schema: {
        tags: ['API credentials'],
        summary: 'The signed-in user',
        response: responses({ 200: CallerSchema }),
      },
    },
    (request) => services.users.describe(principalOf(request).userId),
  );

  const credentials = '/v1/users/me/credentials';
  const credentialTags = ['API credentials'];
  app.get(
    credentials,
    {
      schema: {
        tags: credentialTags,
        summary: "List the caller's API credentials",
        querystring: PageQuerySchema,
        response: responses({ 200: ListCredentialsResponseSchema }),
      },
    },
    (request) =>
      services.credentials.listForCaller(
        principalOf(request),
        request.query.pageSize,
        request.query.pageToken,
      ),
  );
  app.post(
    credentials,
    {
      schema: {
        tags: credentialTags,
        summary: 'Generate an API credential',
        description: 'The password is in this answer only.',
        response: responses({ 200: GeneratedCredentialSchema }),
      },
    },
    (request) => services.credentials.generateForCaller(principalOf(request)),
  );
  app.delete(
    `${credentials}/:credential${ID}`,
    {
      schema: {
        tags: credentialTags,
        summary: 'Revoke an API credential',
        params: CredentialParamsSchema,
        response: responses({ 200: EmptySchema }),
      },
    },
    async (request) => {
      await services.credentials.revokeForCaller(principalOf(request), request.params.credential);
      return {};
    },
  );
}
