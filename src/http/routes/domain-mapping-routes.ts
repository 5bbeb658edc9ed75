/** An environment's custom domains: thin routes over the domain mappings service. */
import {
  DomainMappingAnswerSchema,
  DomainMappingSchema,
  ListDomainMappingsQuerySchema,
  ListDomainMappingsResponseSchema,
  ReplaceDomainMappingsBodySchema,
} from '../../contract/domain-mapping-schemas.js';
import { OperationSchema } from '../../contract/operation-schemas.js';
import type { ApiServices } from '../api-dependencies.js';
import { ENVIRONMENT_PATH, ID, principalOf, responses, type ApiInstance } from '../api-instance.js';
import { DomainMappingParamsSchema, EnvironmentParamsSchema } from '../../contract/path-schemas.js';

const tags = ['Domain mappings'];

/** Custom domains of an environment (docs/api.md: Domain mappings). */
export function registerDomainMappingRoutes(app: ApiInstance, services: ApiServices): void {
  const mappings = `${ENVIRONMENT_PATH}/domainMappings`;
  const one = `${mappings}/:domain${ID}`;
  app.get(
    mappings,
    {
      schema: {
        tags,
        summary: 'List the domain mappings of the environment, including those being created or deleted',
        params: EnvironmentParamsSchema,
        querystring: ListDomainMappingsQuerySchema,
        response: responses({ 200: ListDomainMappingsResponseSchema }),
      },
    },
    (request) => {
      return services.domainMappings.list(principalOf(request), request.params, request.query);
    },
  );
  app.get(
    one,
    {
      schema: {
        tags,
        summary: 'Read one domain mapping',
        params: DomainMappingParamsSchema,
        response: responses({ 200: DomainMappingSchema }),
      },
    },
    (request) => {
      const { domain } = request.params;
      return services.domainMappings.get(principalOf(request), request.params, domain);
    },
  );
  app.post(
    `${mappings}::replace`,
    {
      schema: {
        tags,
        summary: "Make the listed mappings the environment's whole set",
        description:
          'New domains are created, missing ones deleted (DELETING until gone), unchanged ones untouched. Every rule is checked before anything changes. Answers a long-running operation; validateOnly answers a finished one describing the change, without making it.',
        params: EnvironmentParamsSchema,
        body: ReplaceDomainMappingsBodySchema,
        response: responses({ 200: OperationSchema }),
      },
    },
    (request) => {
      return services.domainMappings.replace(principalOf(request), request.params, request.body);
    },
  );
  const verbs = [
    ['verifyTxtRecord', 'Look up the TXT record the mapping shows; the answer says what was found'],
    ['revalidate', 'Check again that the domain points at the edge, and retry certificate issuance'],
    ['markPrimary', "Make this the environment's primary domain"],
  ] as const;
  for (const [verb, summary] of verbs)
    app.post(
      `${one}::${verb}`,
      {
        schema: {
          tags,
          summary,
          params: DomainMappingParamsSchema,
          response: responses({ 200: DomainMappingAnswerSchema }),
        },
      },
      (request) => {
        const { domain } = request.params;
        return services.domainMappings[verb](principalOf(request), request.params, domain);
      },
    );
}
