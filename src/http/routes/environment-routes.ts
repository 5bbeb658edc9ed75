/** Environments and their operations: thin routes over the environments and operations services. */
import { EmptySchema } from '../../contract/common-schemas.js';
import {
  CreateEnvironmentBodySchema,
  EnvironmentSchema,
  ListEnvironmentsQuerySchema,
  ListEnvironmentsResponseSchema,
  UpdateEnvironmentBodySchema,
  UpdateEnvironmentQuerySchema,
} from '../../contract/environment-schemas.js';
import { OperationSchema } from '../../contract/operation-schemas.js';
import type { ApiServices } from '../api-dependencies.js';
import {
  ENVIRONMENT_PATH,
  ENVIRONMENTS_PATH,
  ID,
  principalOf,
  responses,
  type ApiInstance,
} from '../api-instance.js';
import {
  AppParamsSchema,
  EnvironmentParamsSchema,
  OperationParamsSchema,
} from '../../contract/path-schemas.js';

const tags = ['Environments'];

export function registerEnvironmentRoutes(app: ApiInstance, services: ApiServices): void {
  app.get(
    ENVIRONMENTS_PATH,
    {
      schema: {
        tags,
        summary: 'List the environments of an application',
        params: AppParamsSchema,
        querystring: ListEnvironmentsQuerySchema,
        response: responses({ 200: ListEnvironmentsResponseSchema }),
      },
    },
    (request) => services.environments.list(principalOf(request), request.params, request.query),
  );

  app.post(
    ENVIRONMENTS_PATH,
    {
      schema: {
        tags,
        summary: 'Create an environment',
        description: 'Answers a long-running operation named …/operations/no_build; poll it with GET.',
        params: AppParamsSchema,
        body: CreateEnvironmentBodySchema,
        response: responses({ 200: OperationSchema }),
      },
    },
    (request) => services.environments.create(principalOf(request), request.params, request.body),
  );

  app.get(
    ENVIRONMENT_PATH,
    {
      schema: {
        tags,
        summary: 'Get an environment',
        params: EnvironmentParamsSchema,
        response: responses({ 200: EnvironmentSchema }),
      },
    },
    (request) => services.environments.get(principalOf(request), request.params),
  );

  app.patch(
    ENVIRONMENT_PATH,
    {
      schema: {
        tags,
        summary: 'Update an environment',
        description:
          'Merges the fields sent, or exactly the fields of updateMask; validateOnly=true answers the result without writing.',
        params: EnvironmentParamsSchema,
        querystring: UpdateEnvironmentQuerySchema,
        body: UpdateEnvironmentBodySchema,
        response: responses({ 200: EnvironmentSchema }),
      },
    },
    (request) =>
      services.environments.update(principalOf(request), request.params, request.body, request.query),
  );

  app.delete(
    ENVIRONMENT_PATH,
    {
      schema: {
        tags,
        summary: 'Delete an environment',
        params: EnvironmentParamsSchema,
        response: responses({ 200: EmptySchema }),
      },
    },
    async (request) => {
      await services.environments.delete(principalOf(request), request.params);
      return {};
    },
  );

  app.get(
    `${ENVIRONMENT_PATH}/operations/:operation${ID}`,
    {
      schema: {
        tags: ['Operations'],
        summary: 'Get a long-running operation',
        params: OperationParamsSchema,
        response: responses({ 200: OperationSchema }),
      },
    },
    (request) => {
      const { operation } = request.params;
      return services.operations.get(principalOf(request), request.params, operation);
    },
  );
}
