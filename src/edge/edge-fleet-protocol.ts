/**
 * What the edge process that owns the ports (the fleet, src/edge/edge-fleet.ts) and its worker
 * processes (src/edge/edge-worker.ts) tell each other over the IPC channel, and the one function that
 * applies a change to an edge, so that the fleet's own edge and every worker's change the same way.
 * Messages go with Node's advanced serialization: routes carry Maps (Next.js routes), usage carries Dates.
 */
import type { DomainRoute } from '../services/domains/domain-ports.js';
import type { EnvironmentRoute } from '../services/hosting/hosting-ports.js';
import type { Edge, EdgeSettings } from './edge-server.js';
import type { UsageDelta } from './usage-meter.js';

/** The edge settings a worker gets: EdgeSettings without its functions, which stay with the fleet. */
export type EdgeWorkerSettings = Omit<
  EdgeSettings,
  'clock' | 'logger' | 'onRequest' | 'challengeLookup' | 'onPurge' | 'origin'
> & {
  /** The fleet looks ACME challenges up for the worker (the store holds them when processes share it). */
  readonly challengeLookup: boolean;
  /** How often the worker hands its usage counters to the fleet. */
  readonly usageFlushMs: number;
};

/** A change every edge of the fleet makes (or a wait, for drain). */
export type EdgeChange =
  | { readonly op: 'publish'; readonly routes: readonly EnvironmentRoute[] }
  | { readonly op: 'publishDomains'; readonly routes: readonly DomainRoute[] }
  | {
      readonly op: 'installCertificate';
      readonly hostname: string;
      readonly chainPem: string;
      readonly keyPem: string;
    }
  | { readonly op: 'removeCertificate'; readonly hostname: string }
  | { readonly op: 'setChallenge'; readonly token: string; readonly keyAuthorization: string }
  | { readonly op: 'removeChallenge'; readonly token: string }
  | { readonly op: 'clearCache'; readonly environmentId: string }
  | { readonly op: 'purgeTags'; readonly environmentId: string; readonly tags: readonly string[] }
  | {
      readonly op: 'drain';
      readonly environmentId: string;
      readonly buildId: string;
      readonly timeoutMs: number;
    };

/** Everything a new worker must know before it accepts a connection. */
export interface EdgeState {
  readonly routes: readonly EnvironmentRoute[];
  readonly domains: readonly DomainRoute[];
  readonly certificates: readonly { hostname: string; chainPem: string; keyPem: string }[];
  readonly challenges: readonly { token: string; keyAuthorization: string }[];
}

export type ToWorker =
  | {
      readonly type: 'start';
      readonly settings: EdgeWorkerSettings;
      readonly state: EdgeState;
      /** The listening sockets that follow ('listen' messages): the worker says 'serving' once it accepts on all. */
      readonly servers: readonly ('http' | 'https')[];
    }
  /** Sent with the listening server's handle: the worker accepts on it from now on. */
  | { readonly type: 'listen'; readonly server: 'http' | 'https' }
  | { readonly type: 'change'; readonly id: number; readonly change: EdgeChange }
  | { readonly type: 'challenge-answer'; readonly id: number; readonly answer: string | undefined }
  /** Stop accepting, finish what is in flight (cut after timeoutMs), hand over the usage, exit. */
  | { readonly type: 'stop'; readonly timeoutMs: number };

export type FromWorker =
  /** The worker listens for messages: the fleet sends it 'start'. */
  | { readonly type: 'ready' }
  /** It accepts on every socket the fleet sent. */
  | { readonly type: 'serving' }
  /** A change is made (purgeTags: how many entries went). */
  | { readonly type: 'done'; readonly id: number; readonly purged: number }
  | { readonly type: 'usage'; readonly deltas: readonly UsageDelta[] }
  /** The worker purged its own cache after a mutation: the others must too. */
  | { readonly type: 'purged'; readonly environmentId: string; readonly tags: readonly string[] }
  | { readonly type: 'challenge-lookup'; readonly id: number; readonly token: string };

/** Makes the change on an edge; purgeTags answers how many entries went, the others 0. */
export async function applyChange(edge: Edge, change: EdgeChange): Promise<number> {
  switch (change.op) {
    case 'publish':
      edge.publish(change.routes);
      return 0;
    case 'publishDomains':
      edge.publishDomains(change.routes);
      return 0;
    case 'installCertificate':
      edge.installCertificate(change.hostname, change.chainPem, change.keyPem);
      return 0;
    case 'removeCertificate':
      edge.removeCertificate(change.hostname);
      return 0;
    case 'setChallenge':
      edge.setChallenge(change.token, change.keyAuthorization);
      return 0;
    case 'removeChallenge':
      edge.removeChallenge(change.token);
      return 0;
    case 'clearCache':
      edge.clearCache(change.environmentId);
      return 0;
    case 'purgeTags':
      return edge.purgeTags(change.environmentId, change.tags);
    case 'drain':
      await edge.drain(change.environmentId, change.buildId, change.timeoutMs);
      return 0;
  }
}

/** Makes a whole state on a new edge. */
export function applyState(edge: Edge, state: EdgeState): void {
  edge.publish(state.routes);
  edge.publishDomains(state.domains);
  for (const { hostname, chainPem, keyPem } of state.certificates)
    edge.installCertificate(hostname, chainPem, keyPem);
  for (const { token, keyAuthorization } of state.challenges) edge.setChallenge(token, keyAuthorization);
}
