/**
 * Long-running operations (AIP-151) of an environment, as GET …/operations/{id} answers them.
 */
import { AtollError } from '../../domain/error-catalogue.js';
import type { EnvironmentRef } from '../../contract/path-schemas.js';
import { UPDATE_ENVIRONMENT_METADATA_TYPE } from '../../domain/operation.js';
import { buildName, operationName } from '../../domain/resource-names.js';
import type { Operation } from '../../contract/operation-schemas.js';
import type { Principal } from '../access/auth-service.js';
import type { EnvironmentScope, EnvironmentsService } from './environments-service.js';
import type { Store } from '../kit/store-port.js';

/**
 * How the operations of another resource answer (domain mappings' verifications): that subsystem
 * sits above apps, so it lends this reader instead of being imported.
 */
export interface OperationResults {
  operationOf(
    account: string,
    appId: string,
    environmentId: string,
    operationId: string,
    done: boolean,
  ): Operation;
  responseOf(scope: EnvironmentScope, environmentId: string): Promise<Record<string, unknown>>;
}

const ENVIRONMENT_TYPE = 'type.googleapis.com/wpengine.js.apps.v1.Environment';

/** Long-running operations (AIP-151): stored, polled with GET until done. */
export class OperationsService {
  constructor(
    private readonly deps: {
      store: Store;
      environments: EnvironmentsService;
      domainMappings?: OperationResults;
    },
  ) {}

  async get(principal: Principal, ref: EnvironmentRef, operationId: string): Promise<Operation> {
    const { account, app: appId, environment: environmentId } = ref;
    const { scope, environment } = await this.deps.environments.locate(principal, ref, 'environment.read');
    const operation = await this.deps.store.operations.find(environment.id, operationId);
    const name = operationName(account, appId, environmentId, operationId);
    if (!operation) throw new AtollError('OPERATION_NOT_FOUND', `${name} does not exist`);
    const domainMappings = this.deps.domainMappings;
    if (operation.resultKind === 'domainMappings' && domainMappings) {
      const answer = domainMappings.operationOf(account, appId, environmentId, operationId, operation.done);
      if (!operation.done) return answer;
      if (operation.error)
        return { ...answer, error: { ...operation.error, details: [...operation.error.details] } };
      return { ...answer, response: await domainMappings.responseOf(scope, environment.id) };
    }
    const answer: Operation = {
      name,
      metadata: {
        '@type': UPDATE_ENVIRONMENT_METADATA_TYPE,
        build: buildName(account, appId, environmentId, operation.buildId),
        deployment: '',
      },
      done: operation.done,
    };
    if (!operation.done) return answer;
    if (operation.error)
      return { ...answer, error: { ...operation.error, details: [...operation.error.details] } };
    if (operation.resultKind === 'environment') {
      return {
        ...answer,
        response: { '@type': ENVIRONMENT_TYPE, ...this.deps.environments.toEnvironment(scope, environment) },
      };
    }
    return answer;
  }
}
