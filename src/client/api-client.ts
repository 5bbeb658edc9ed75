/**
 * The typed client of the public API (fetch only), shared by the portal and the developer CLI so that both
 * speak the wire contract the same way.
 */
import type { Static } from '@sinclair/typebox';
import type {
  Account,
  Caller,
  Credential,
  GeneratedCredential,
  ListAccountsResponse,
  Member,
} from '../contract/account-schemas.js';
import type {
  App,
  ListAppsResponse,
  ListRegionsResponseSchema,
  RepositoryInput,
  RotateWebhookSecretResponse,
} from '../contract/app-schemas.js';
import type { Build, ListBuildsResponse } from '../contract/build-schemas.js';
import type { Status } from '../contract/common-schemas.js';
import type {
  DomainMapping,
  DomainMappingAnswer,
  ListDomainMappingsResponse,
  ReplaceDomainMappingsBody,
} from '../contract/domain-mapping-schemas.js';
import type {
  Environment,
  ListEnvironmentsResponse,
  UpdateEnvironmentBody,
} from '../contract/environment-schemas.js';
import type { Operation } from '../contract/operation-schemas.js';
import type {
  CreateEventSubscriptionBody,
  Delivery,
  EventSubscription,
  ListDeliveriesResponse,
  ListEventSubscriptionsResponse,
} from '../contract/event-schemas.js';
import type {
  ListSiteReports,
  ReportError,
  ReportScheduleWire,
  ReportTemplateWire,
  SiteReportWire,
} from '../contract/report-schemas.js';
import type { Session } from '../contract/session-schemas.js';
import type { UsageInterval, UsageReport } from '../contract/usage-schemas.js';
import type { Webhooks } from '../contract/webhook-schemas.js';

export { EVENT_TYPES, type EventType } from '../contract/event-types.js';
export { commitPageUrl, type GitProvider } from '../domain/git/repository-url.js';
export { relativeRecordName } from '../domain/domains/registered-domain.js';
export { shortBuildId } from '../domain/builds/short-build-id.js';
export type {
  Account,
  App,
  Caller,
  Build,
  Credential,
  Delivery,
  DomainMapping,
  Environment,
  EventSubscription,
  GeneratedCredential,
  ListSiteReports,
  Member,
  Operation,
  ReportScheduleWire as ReportSchedule,
  ReportTemplateWire as ReportTemplate,
  Session,
  SiteReportWire as SiteReport,
  UpdateEnvironmentBody,
  UsageInterval,
  UsageReport,
  Webhooks,
};

/** A region an application can be created in (`regions/US-C`), as `GET /v1/regions` lists it. */
export type Region = ListRegionsResponse['regions'][number];
type ListRegionsResponse = Static<typeof ListRegionsResponseSchema>;

/** What an upload transport answers: the HTTP status and the body as text. */
export interface UploadAnswer {
  readonly status: number;
  readonly text: string;
}

/**
 * Sends a multipart upload and reports the bytes sent. The portal passes one made with
 * XMLHttpRequest (fetch cannot report upload progress over HTTP/1.1); the default uses fetch.
 */
export type UploadTransport = (
  url: string,
  body: FormData,
  headers: Record<string, string>,
  onProgress: (sent: number, total: number) => void,
) => Promise<UploadAnswer>;

/** A new environment (docs/api.md "Environments"). */
export interface NewEnvironment {
  readonly displayName: string;
  readonly wpEnvironment: string;
  readonly shellVariables: readonly {
    readonly key: string;
    readonly value: string;
    readonly secret?: boolean;
  }[];
  readonly rootDirectory?: string;
  /** The branch it builds, for an application connected to a repository; `uploadable` otherwise. */
  readonly branch?: string;
  /** Preview environments of pull requests against its branch (repository applications). */
  readonly previews?: { readonly enabled?: boolean; readonly allowForks?: boolean };
}

/** One broken rule of a request, as the API names it (`google.rpc.BadRequest`). */
export interface FieldViolation {
  readonly field: string;
  readonly description: string;
}

/** A new or changed report schedule, in the site-report API's own field names (docs/api.md "Site reports"). */
export interface ReportScheduleFields {
  readonly site_id?: string;
  readonly title?: string;
  readonly next_scheduled_date?: string;
  readonly template_uuid?: string;
  readonly frequency?: { readonly unit: string; readonly value: number };
  readonly recipients?: readonly { readonly name: string; readonly email: string }[];
  readonly sections?: readonly string[];
}

/**
 * A call the API refused: its Status, with the reason and the field violations read out. The site-report
 * API answers in its own shape (`{message, errors}`, docs/api.md "Site reports errors"): its errors are read
 * as field violations too, so a form shows either next to the field.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly httpStatus: number,
    readonly status: Status | undefined,
    message: string,
    readonly reportErrors: ReportError['errors'] = [],
  ) {
    super(message);
  }

  /** The catalogue code (docs/errors.md), such as `SIGN_IN_FAILED`. */
  get reason(): string | undefined {
    const reason = this.#detail('google.rpc.ErrorInfo')?.reason;
    return typeof reason === 'string' ? reason : undefined;
  }

  get fieldViolations(): FieldViolation[] {
    const list = this.#detail('google.rpc.BadRequest')?.fieldViolations;
    const fromReports = (this.reportErrors ?? []).flatMap((e) =>
      e.field === undefined ? [] : [{ field: e.field, description: e.message ?? e.code ?? 'invalid' }],
    );
    return [...(Array.isArray(list) ? (list as FieldViolation[]) : []), ...fromReports];
  }

  #detail(type: string): Record<string, unknown> | undefined {
    const details = (this.status?.details ?? []) as Record<string, unknown>[];
    return details.find((d) => d['@type'] === `type.googleapis.com/${type}`);
  }

  /** The description of the violation of `field`, for showing next to that field. */
  violationOf(field: string): string | undefined {
    return this.fieldViolations.find((v) => v.field === field)?.description;
  }
}

/** The last part of a resource name: `accounts/a/apps/x/environments/<id>` → `<id>`. */
export function resourceId(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1);
}

/** Any failure of a call as an ApiError: a network failure has no HTTP status (0) and no Status. */
export function asApiError(failure: unknown): ApiError {
  return failure instanceof ApiError ? failure : new ApiError(0, undefined, String(failure));
}

export interface ApiClientOptions {
  /** The API's origin; empty for the page's own (the portal is served by the control plane). */
  readonly baseUrl?: string;
  readonly fetch?: typeof fetch;
  readonly upload?: UploadTransport;
  /**
   * An `Authorization` header sent with every call (the CLI's Basic credentials); without it the
   * client relies on the session cookie and CSRF token (the portal).
   */
  readonly authorization?: string;
}

/**
 * The typed client of the public /v1 API, for the portal and the CLI. The portal signs in with the
 * session cookie and sends the session's CSRF token with every change, as docs/api.md "Portal
 * sessions" asks; the CLI passes Basic credentials as `authorization`.
 */
export class ApiClient {
  readonly #baseUrl: string;
  readonly #fetch: typeof fetch;
  readonly #upload: UploadTransport;
  readonly #authorization: string | undefined;
  #csrfToken: string | undefined;

  constructor(options: ApiClientOptions = {}) {
    this.#baseUrl = options.baseUrl ?? '';
    this.#authorization = options.authorization;
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#upload =
      options.upload ??
      (async (url, body, headers) => {
        const response = await this.#fetch(url, {
          method: 'POST',
          body,
          headers,
          credentials: 'same-origin',
        });
        return { status: response.status, text: await response.text() };
      });
  }

  async signIn(email: string, password: string): Promise<Session> {
    const session = await this.#call<Session>('POST', '/v1/sessions', { email, password });
    this.#csrfToken = session.csrfToken;
    return session;
  }

  /** The signed-in session, or undefined when there is none (the sign-in page is shown). */
  async currentSession(): Promise<Session | undefined> {
    try {
      const session = await this.#call<Session>('GET', '/v1/sessions/current');
      this.#csrfToken = session.csrfToken;
      return session;
    } catch (error) {
      if (error instanceof ApiError && error.httpStatus === 401) return undefined;
      throw error;
    }
  }

  async signOut(): Promise<void> {
    await this.#call('DELETE', '/v1/sessions/current');
    this.#csrfToken = undefined;
  }

  /** Who the credentials or the session belong to. */
  async getCaller(): Promise<Caller> {
    return this.#call<Caller>('GET', '/v1/users/me');
  }

  async listAccounts(): Promise<Account[]> {
    return (await this.#call<ListAccountsResponse>('GET', '/v1/accounts?pageSize=200')).accounts;
  }

  async listApps(account: string): Promise<App[]> {
    const path = `/v1/accounts/${encodeURIComponent(account)}/apps?pageSize=200`;
    return (await this.#call<ListAppsResponse>('GET', path)).apps;
  }

  async getApp(account: string, app: string): Promise<App> {
    return this.#call<App>('GET', appPath(account, app));
  }

  /** The regions an application can be created in, in the order the API lists them. */
  async listRegions(): Promise<Region[]> {
    return (await this.#call<ListRegionsResponse>('GET', '/v1/regions')).regions;
  }

  /**
   * An application in the region (`regions/US-C`, …): a direct-upload one (`uploadable: {}`), or one
   * connected to the git repository given (docs/git.md).
   */
  async createApp(
    account: string,
    appId: string,
    region: string,
    repository?: RepositoryInput,
  ): Promise<void> {
    const path = `/v1/accounts/${encodeURIComponent(account)}/apps?appId=${encodeURIComponent(appId)}`;
    await this.#call(
      'POST',
      path,
      repository === undefined ? { region, uploadable: {} } : { region, repository },
    );
  }

  /** A new secret for the repository's webhooks, shown only in this answer. */
  async rotateWebhookSecret(account: string, app: string): Promise<RotateWebhookSecretResponse> {
    return this.#call<RotateWebhookSecretResponse>(
      'POST',
      `${appPath(account, app)}/repository:rotateWebhookSecret`,
    );
  }

  /** Forgets the repository's trusted ssh host key: the next fetch trusts the one it meets. */
  async resetHostKey(account: string, app: string): Promise<void> {
    await this.#call('POST', `${appPath(account, app)}/repository:resetHostKey`);
  }

  async listEnvironments(account: string, app: string): Promise<Environment[]> {
    const path = `${appPath(account, app)}/environments?pageSize=200`;
    return (await this.#call<ListEnvironmentsResponse>('GET', path)).environments;
  }

  async getEnvironment(name: string): Promise<Environment> {
    return this.#call<Environment>('GET', `/v1/${name}`);
  }

  /** Answers the creation's operation; the environment exists once it is done. */
  async createEnvironment(account: string, app: string, fields: NewEnvironment): Promise<Operation> {
    return this.#call<Operation>('POST', `${appPath(account, app)}/environments`, {
      ...fields,
      // A direct-upload application's environments are on the upload "branch".
      branch: fields.branch ?? 'uploadable',
    });
  }

  async getOperation(name: string): Promise<Operation> {
    return this.#call<Operation>('GET', `/v1/${name}`);
  }

  /** Reads the operation every `pollMs` until it is done; answers it done (with its `error`, if it failed). */
  async waitForOperation(operation: Operation, pollMs: number): Promise<Operation> {
    let current = operation;
    while (!current.done) {
      await new Promise((resolve) => setTimeout(resolve, pollMs));
      current = await this.getOperation(operation.name);
    }
    return current;
  }

  /** Uploads a .zip of the code to the environment (its resource name); answers the build's operation. */
  async uploadZip(
    environment: string,
    zip: Blob,
    fileName: string,
    onProgress: (sent: number, total: number) => void = () => undefined,
  ): Promise<Operation> {
    const form = new FormData();
    form.append('repository', zip, fileName);
    const headers = this.#headers('POST');
    const answer = await this.#upload(
      `${this.#baseUrl}/fu/v1/${environment}:upload`,
      form,
      headers,
      onProgress,
    );
    return readAnswer(answer.status, answer.text) as Operation;
  }

  async deleteApp(account: string, app: string): Promise<void> {
    await this.#call('DELETE', appPath(account, app));
  }

  /** Changes the fields in `fields` (the others are kept); answers the updated environment. */
  async updateEnvironment(name: string, fields: UpdateEnvironmentBody): Promise<Environment> {
    return this.#call<Environment>('PATCH', `/v1/${name}`, fields);
  }

  async deleteEnvironment(name: string): Promise<void> {
    await this.#call('DELETE', `/v1/${name}`);
  }

  /** Builds the latest source again; `clean` drops the build cache first. Answers the build's operation. */
  async rebuild(environment: string, clean = false): Promise<Operation> {
    return this.#call<Operation>('POST', `/v1/${environment}:rebuild`, { clean });
  }

  async clearCache(environment: string): Promise<void> {
    await this.#call('POST', `/v1/${environment}:clearCache`);
  }

  /** The environment's builds, newest first. */
  async listBuilds(environment: string, pageSize = 50): Promise<Build[]> {
    const path = `/v1/${environment}/builds?pageSize=${String(pageSize)}`;
    return (await this.#call<ListBuildsResponse>('GET', path)).builds;
  }

  async getBuild(name: string): Promise<Build> {
    return this.#call<Build>('GET', `/v1/${name}`);
  }

  async cancelBuild(name: string): Promise<Build> {
    return this.#call<Build>('POST', `/v1/${name}:cancel`);
  }

  /** Deploys an earlier succeeded build again (rollback); answers the new REDEPLOY build's operation. */
  async redeployBuild(name: string): Promise<Operation> {
    return this.#call<Operation>('POST', `/v1/${name}:redeploy`);
  }

  /**
   * Streams the build's log (`?follow=true`): `onText` gets each chunk as it comes, until the build has
   * finished or `signal` aborts.
   */
  async followBuildLog(name: string, onText: (text: string) => void, signal?: AbortSignal): Promise<void> {
    await this.#followText(`/v1/${name}/logs?follow=true`, onText, signal);
  }

  /**
   * Streams the environment's runtime log (a server app's output): the newest `tail` lines, then each
   * line as it comes, until `signal` aborts.
   */
  async followRuntimeLog(
    environment: string,
    tail: number,
    onText: (text: string) => void,
    signal?: AbortSignal,
  ): Promise<void> {
    await this.#followText(`/v1/${environment}/logs?follow=true&tail=${String(tail)}`, onText, signal);
  }

  /** The build's log so far, as text. */
  async readBuildLog(name: string): Promise<string> {
    return this.#readText(`/v1/${name}/logs`);
  }

  /** The newest `tail` lines of the environment's runtime log. */
  async readRuntimeLog(environment: string, tail: number): Promise<string> {
    return this.#readText(`/v1/${environment}/logs?tail=${String(tail)}`);
  }

  async #readText(path: string): Promise<string> {
    let text = '';
    await this.#followText(path, (chunk) => {
      text += chunk;
    });
    return text;
  }

  async #followText(path: string, onText: (text: string) => void, signal?: AbortSignal): Promise<void> {
    const response = await this.#fetch(`${this.#baseUrl}${path}`, {
      headers: this.#headers('GET'),
      credentials: 'same-origin',
      ...(signal !== undefined && { signal }),
    });
    if (!response.ok || response.body === null) {
      readAnswer(response.status, await response.text());
      return;
    }
    const decoder = new TextDecoder();
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      onText(decoder.decode(value, { stream: true }));
    }
  }

  /** The edge's counters for the environment, summed per `intervalSeconds`, over the last `hours`. */
  async getUsage(environment: string, hours: number, intervalSeconds: number): Promise<UsageReport> {
    const end = new Date();
    const start = new Date(end.getTime() - hours * 3_600_000);
    const query = new URLSearchParams({
      startTime: start.toISOString(),
      endTime: end.toISOString(),
      interval: `${String(intervalSeconds)}s`,
    });
    return this.#call<UsageReport>('GET', `/v1/${environment}/usage?${query.toString()}`);
  }

  async listDomainMappings(environment: string): Promise<DomainMapping[]> {
    const path = `/v1/${environment}/domainMappings?pageSize=200`;
    return (await this.#call<ListDomainMappingsResponse>('GET', path)).domainMappings;
  }

  /** Replaces the environment's whole set of domain mappings; answers the operation. */
  async replaceDomainMappings(
    environment: string,
    domainMappings: ReplaceDomainMappingsBody['domainMappings'],
  ): Promise<Operation> {
    return this.#call<Operation>('POST', `/v1/${environment}/domainMappings:replace`, { domainMappings });
  }

  /** `verifyTxtRecord`, `revalidate` or `markPrimary` on one mapping (its resource name). */
  async domainMappingAction(
    name: string,
    action: 'verifyTxtRecord' | 'revalidate' | 'markPrimary',
  ): Promise<DomainMapping> {
    return (await this.#call<DomainMappingAnswer>('POST', `/v1/${name}:${action}`)).domainMapping;
  }

  /** The environment's webhook set, or undefined when it has none. */
  async getWebhooks(environment: string): Promise<Webhooks | undefined> {
    try {
      return await this.#call<Webhooks>('GET', `/v1/${environment}/webhooks`);
    } catch (error) {
      if (error instanceof ApiError && error.httpStatus === 404) return undefined;
      throw error;
    }
  }

  async createWebhooks(environment: string): Promise<Webhooks> {
    return this.#call<Webhooks>('POST', `/v1/${environment}/webhooks`);
  }

  async regenerateWebhooks(environment: string): Promise<Webhooks> {
    return this.#call<Webhooks>('POST', `/v1/${environment}/webhooks:regenerate`);
  }

  async deleteWebhooks(environment: string): Promise<void> {
    await this.#call('DELETE', `/v1/${environment}/webhooks`);
  }

  async listEventSubscriptions(account: string): Promise<EventSubscription[]> {
    const path = `${accountPath(account)}/eventSubscriptions?pageSize=200`;
    return (await this.#call<ListEventSubscriptionsResponse>('GET', path)).eventSubscriptions;
  }

  /** Answers the subscription with its signing `secret`, shown this once. */
  async createEventSubscription(
    account: string,
    fields: CreateEventSubscriptionBody,
  ): Promise<EventSubscription> {
    return this.#call<EventSubscription>('POST', `${accountPath(account)}/eventSubscriptions`, fields);
  }

  async deleteEventSubscription(name: string): Promise<void> {
    await this.#call('DELETE', `/v1/${name}`);
  }

  /** Sends a `test` event to the subscription now; answers its delivery. */
  async testEventSubscription(name: string): Promise<Delivery> {
    return this.#call<Delivery>('POST', `/v1/${name}:test`);
  }

  async listDeliveries(subscription: string): Promise<Delivery[]> {
    const path = `/v1/${subscription}/deliveries?pageSize=50`;
    return (await this.#call<ListDeliveriesResponse>('GET', path)).deliveries;
  }

  async listMembers(account: string): Promise<Member[]> {
    return (await this.#call<{ members: Member[] }>('GET', `${accountPath(account)}/members?pageSize=200`))
      .members;
  }

  async addMember(account: string, email: string, role: string): Promise<Member> {
    return this.#call<Member>('POST', `${accountPath(account)}/members`, { email, role });
  }

  async setMemberRole(account: string, email: string, role: string): Promise<Member> {
    return this.#call<Member>('PATCH', `${accountPath(account)}/members/${encodeURIComponent(email)}`, {
      role,
    });
  }

  async removeMember(account: string, email: string): Promise<void> {
    await this.#call('DELETE', `${accountPath(account)}/members/${encodeURIComponent(email)}`);
  }

  async listCredentials(): Promise<Credential[]> {
    return (await this.#call<{ credentials: Credential[] }>('GET', '/v1/users/me/credentials?pageSize=200'))
      .credentials;
  }

  /** A new API credential; its password is in this answer only. */
  async generateCredential(): Promise<GeneratedCredential> {
    return this.#call<GeneratedCredential>('POST', '/v1/users/me/credentials');
  }

  async revokeCredential(userId: string): Promise<void> {
    await this.#call('DELETE', `/v1/users/me/credentials/${encodeURIComponent(userId)}`);
  }

  /** Ends the user's other sessions; this one stays. */
  async changePassword(currentPassword: string, newPassword: string): Promise<void> {
    await this.#call('POST', '/v1/users/me:changePassword', { currentPassword, newPassword });
  }

  /** The report templates an account may use (`account_id`: the account's `uid`). */
  async listReportTemplates(accountUid: string): Promise<ReportTemplateWire[]> {
    const path = `/v1/site_reports/templates?account_id=${encodeURIComponent(accountUid)}`;
    return (await this.#call<{ templates: ReportTemplateWire[] }>('GET', path)).templates;
  }

  /** The schedules of a site (an environment's id). */
  async listReportSchedules(siteId: string): Promise<ReportScheduleWire[]> {
    const path = `/v1/site_reports/schedules?site_id=${encodeURIComponent(siteId)}`;
    return (await this.#call<{ schedules: ReportScheduleWire[] }>('GET', path)).schedules;
  }

  async createReportSchedule(fields: ReportScheduleFields): Promise<ReportScheduleWire> {
    const path = '/v1/site_reports/schedules';
    return (await this.#call<{ schedule: ReportScheduleWire }>('POST', path, fields)).schedule;
  }

  async getReportSchedule(scheduleId: string): Promise<ReportScheduleWire> {
    return this.#call<ReportScheduleWire>(
      'GET',
      `/v1/site_reports/schedules/${encodeURIComponent(scheduleId)}`,
    );
  }

  async updateReportSchedule(scheduleId: string, fields: ReportScheduleFields): Promise<ReportScheduleWire> {
    const path = `/v1/site_reports/schedules/${encodeURIComponent(scheduleId)}`;
    return (await this.#call<{ schedule: ReportScheduleWire }>('PATCH', path, fields)).schedule;
  }

  async deleteReportSchedule(scheduleId: string): Promise<void> {
    await this.#call('DELETE', `/v1/site_reports/schedules/${encodeURIComponent(scheduleId)}`);
  }

  /** Makes a report now and e-mails it to the recipients (`send` false: only makes it). */
  async runReportSchedule(scheduleId: string, send = true): Promise<SiteReportWire> {
    const path = `/v1/site_reports/schedules/${encodeURIComponent(scheduleId)}:run?send=${String(send)}`;
    return (await this.#call<{ report: SiteReportWire }>('POST', path)).report;
  }

  /** The site's reports, newest first, `limit` at a time from `offset`. */
  async listSiteReports(siteId: string, limit = 20, offset = 0): Promise<ListSiteReports> {
    const query = new URLSearchParams({ site_id: siteId, limit: String(limit), offset: String(offset) });
    return this.#call<ListSiteReports>('GET', `/v1/site_reports?${query.toString()}`);
  }

  #headers(method: string): Record<string, string> {
    const headers: Record<string, string> = {};
    if (this.#authorization !== undefined) headers.authorization = this.#authorization;
    if (method !== 'GET' && this.#csrfToken !== undefined) headers['x-csrf-token'] = this.#csrfToken;
    return headers;
  }

  async #call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers = this.#headers(method);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await this.#fetch(`${this.#baseUrl}${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return readAnswer(response.status, await response.text()) as T;
  }
}

function accountPath(account: string): string {
  return `/v1/accounts/${encodeURIComponent(account)}`;
}

function appPath(account: string, app: string): string {
  return `${accountPath(account)}/apps/${encodeURIComponent(app)}`;
}

/** The answer's JSON, or an ApiError carrying its Status. */
function readAnswer(httpStatus: number, text: string): unknown {
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    throw new ApiError(httpStatus, undefined, `HTTP ${String(httpStatus)}: the answer is not JSON`);
  }
  if (httpStatus < 200 || httpStatus > 299) {
    const status = parsed as (Status & Partial<ReportError>) | undefined;
    const message = typeof status?.message === 'string' ? status.message : `HTTP ${String(httpStatus)}`;
    throw new ApiError(httpStatus, status, message, Array.isArray(status?.errors) ? status.errors : []);
  }
  return parsed;
}
