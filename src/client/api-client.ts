import type { Account, ListAccountsResponse } from '../contract/account-schemas.js';
import type { App, ListAppsResponse } from '../contract/app-schemas.js';
import type { Status } from '../contract/common-schemas.js';
import type { Session } from '../contract/session-schemas.js';

export type { Account, App, Session };

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

export interface ApiClientOptions {
  /** The API's origin; empty for the page's own (the portal is served by the control plane). */
  readonly baseUrl?: string;
  readonly fetch?: typeof fetch;
}

/**
 * The typed client of the public /v1 API for the portal: it signs in with the session cookie
 * and sends the session's CSRF token with every change, as docs/api.md "Portal sessions" asks.
 */
export class ApiClient {
  readonly #baseUrl: string;
  readonly #fetch: typeof fetch;
  #csrfToken: string | undefined;

  constructor(options: ApiClientOptions = {}) {
    this.#baseUrl = options.baseUrl ?? '';
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
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
    const text = await response.text();
    const parsed: unknown = text === '' ? undefined : JSON.parse(text);
    if (!response.ok) {
      const status = parsed as Status | undefined;
      throw new ApiError(response.status, status, status?.message ?? `HTTP ${String(response.status)}`);
    }
    return parsed as T;
  }
}
