import type { Account, ListAccountsResponse } from '../contract/account-schemas.js';
import type { App, ListAppsResponse } from '../contract/app-schemas.js';
import type { Status } from '../contract/common-schemas.js';
import type { Environment, ListEnvironmentsResponse, Operation } from '../contract/environment-schemas.js';
import type { Session } from '../contract/session-schemas.js';

export type { Account, App, Environment, Operation, Session };

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

/** A new environment of a direct-upload application (docs/api.md "Environments"). */
export interface NewEnvironment {
  readonly displayName: string;
  readonly wpEnvironment: string;
  readonly shellVariables: readonly { readonly key: string; readonly value: string }[];
}

/** One broken rule of a request, as the API names it (`google.rpc.BadRequest`). */
export interface FieldViolation {
  readonly field: string;
  readonly description: string;
}

/** A call the API refused: its Status, with the reason and the field violations read out. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly httpStatus: number,
    readonly status: Status | undefined,
    message: string,
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
    return Array.isArray(list) ? (list as FieldViolation[]) : [];
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

/** Any failure of a call as an ApiError: a network failure has no HTTP status (0) and no Status. */
export function asApiError(failure: unknown): ApiError {
  return failure instanceof ApiError ? failure : new ApiError(0, undefined, String(failure));
}

export interface ApiClientOptions {
  /** The API's origin; empty for the page's own (the portal is served by the control plane). */
  readonly baseUrl?: string;
  readonly fetch?: typeof fetch;
  readonly upload?: UploadTransport;
}

/**
 * The typed client of the public /v1 API for the portal: it signs in with the session cookie
 * and sends the session's CSRF token with every change, as docs/api.md "Portal sessions" asks.
 */
export class ApiClient {
  readonly #baseUrl: string;
  readonly #fetch: typeof fetch;
  readonly #upload: UploadTransport;
  #csrfToken: string | undefined;

  constructor(options: ApiClientOptions = {}) {
    this.#baseUrl = options.baseUrl ?? '';
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

  async listAccounts(): Promise<Account[]> {
    return (await this.#call<ListAccountsResponse>('GET', '/v1/accounts?pageSize=200')).accounts;
  }

  async listApps(account: string): Promise<App[]> {
    const path = `/v1/accounts/${encodeURIComponent(account)}/apps?pageSize=200`;
    return (await this.#call<ListAppsResponse>('GET', path)).apps;
  }

  /** A direct-upload application (`uploadable: {}`) in the region (`regions/US-C`, …). */
  async createApp(account: string, appId: string, region: string): Promise<void> {
    const path = `/v1/accounts/${encodeURIComponent(account)}/apps?appId=${encodeURIComponent(appId)}`;
    await this.#call('POST', path, { region, uploadable: {} });
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
      branch: 'uploadable',
    });
  }

  async getOperation(name: string): Promise<Operation> {
    return this.#call<Operation>('GET', `/v1/${name}`);
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
    const headers: Record<string, string> = {};
    if (this.#csrfToken !== undefined) headers['x-csrf-token'] = this.#csrfToken;
    const answer = await this.#upload(
      `${this.#baseUrl}/fu/v1/${environment}:upload`,
      form,
      headers,
      onProgress,
    );
    return readAnswer(answer.status, answer.text) as Operation;
  }

  async #call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (method !== 'GET' && this.#csrfToken !== undefined) headers['x-csrf-token'] = this.#csrfToken;
    const response = await this.#fetch(`${this.#baseUrl}${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return readAnswer(response.status, await response.text()) as T;
  }
}

function appPath(account: string, app: string): string {
  return `/v1/accounts/${encodeURIComponent(account)}/apps/${encodeURIComponent(app)}`;
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
    const status = parsed as Status | undefined;
    throw new ApiError(httpStatus, status, status?.message ?? `HTTP ${String(httpStatus)}`);
  }
  return parsed;
}
