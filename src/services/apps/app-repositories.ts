/**
 * The git repository of an application (docs/git.md): checked and connected when the application is
 * created, shown with its deploy key and webhook URL, its webhook secret rotated. Credentials are sealed
 * with the platform key and never answered: the token is write-only, the deploy key's private half
 * never leaves the store but for a fetch.
 */
import { randomBytes } from 'node:crypto';
import { AtollError, assertNoViolations, type FieldViolation } from '../../domain/error-catalogue.js';
import {
  checkRepositoryUrl,
  guessProvider,
  hostedCloneUrl,
  repositoryDisplayName,
  GIT_PROVIDERS,
  type GitProvider,
  type RepositoryUrl,
} from '../../domain/git/repository-url.js';
import { hostKeyFingerprint } from '../../domain/git/ssh-host-key.js';
import { statusApiBase, takesCommitStatuses } from '../../domain/git/commit-status.js';
import { isLocalOrPrivateHost, privateHostRule } from '../../domain/network/address-rules.js';
import { appName } from '../../domain/resource-names.js';
import type { Repository, RepositoryInput } from '../../contract/app-schemas.js';
import type { Clock, DeployKeyMaker, SecretBox } from '../kit/platform-ports.js';
import type { AppRecord, RepositoryRecord, Store } from '../kit/store-port.js';

const MAX_TOKEN_LENGTH = 1_024;

export interface AppRepositoriesSettings {
  /** Clone targets on loopback, private or link-local addresses (ATOLL_GIT_ALLOW_PRIVATE). */
  readonly allowPrivate: boolean;
  /** The platform's public URL: webhook URLs are under it. */
  readonly publicUrl: string;
}

/** The repository of a new application, checked, with its credentials sealed (appPk and times are the caller's). */
export type NewRepository = Omit<RepositoryRecord, 'appPk' | 'createTime' | 'updateTime'>;

export class AppRepositories {
  constructor(
    private readonly deps: {
      store: Store;
      secretBox: SecretBox;
      clock: Clock;
      deployKeys: DeployKeyMaker;
      settings: AppRepositoriesSettings;
    },
  ) {}

  /** Checks what a client sent (400 naming each broken rule) and makes the repository's credentials. */
  async connect(input: RepositoryInput, names: { account: string; appId: string }): Promise<NewRepository> {
    const { url, violations } = this.#check(input);
    assertNoViolations(violations);
    if (url === undefined) throw new Error('unreachable: checked above');
    const provider = (input.provider as GitProvider | undefined) ?? guessProvider(url.host);
    const key =
      url.transport === 'ssh'
        ? await this.deps.deployKeys.make(`atoll-deploy-key ${appName(names.account, names.appId)}`)
        : undefined;
    return {
      url: url.url,
      provider,
      accessTokenSealed: input.accessToken === undefined ? '' : this.deps.secretBox.seal(input.accessToken),
      deployKeySealed: key === undefined ? '' : this.deps.secretBox.seal(key.privateKey),
      deployKeyPublic: key?.publicKey ?? '',
      knownHost: '',
      webhookSecretSealed: this.deps.secretBox.seal(newWebhookSecret()),
      apiUrl: input.apiUrl ?? '',
    };
  }

  #check(input: RepositoryInput): { url: RepositoryUrl | undefined; violations: FieldViolation[] } {
    const violations: FieldViolation[] = [];
    if (input.provider === 'UPLOADABLE')
      return {
        url: undefined,
        violations: [
          {
            field: 'repository.provider',
            description:
              'UPLOADABLE is not a git host: send "uploadable": {} to create a direct-upload application',
          },
        ],
      };
    const given =
      input.url ??
      (input.provider !== undefined && input.name !== undefined
        ? hostedCloneUrl(input.provider as GitProvider, input.name)
        : undefined);
    if (given === undefined)
      return {
        url: undefined,
        violations: [
          {
            field: 'repository.url',
            description: `is required: the clone URL (https://… or git@host:owner/repo.git); "name" stands for it only with provider ${GIT_PROVIDERS.slice(0, 3).join(', ')}`,
          },
        ],
      };
    const check = checkRepositoryUrl(given);
    if (!check.ok)
      return { url: undefined, violations: [{ field: 'repository.url', description: check.rule }] };
    const url = check.repository;
    if (!this.deps.settings.allowPrivate && isLocalOrPrivateHost(url.host))
      violations.push({
        field: 'repository.url',
        description: privateHostRule('ATOLL_GIT_ALLOW_PRIVATE'),
      });
    if (input.accessToken !== undefined) {
      if (url.transport === 'ssh')
        violations.push({
          field: 'repository.accessToken',
          description:
            'is only for https URLs: an ssh repository is read with the deploy key the application shows',
        });
      else if (input.accessToken === '' || input.accessToken.length > MAX_TOKEN_LENGTH)
        violations.push({
          field: 'repository.accessToken',
          description: `must be 1 to ${String(MAX_TOKEN_LENGTH)} characters`,
        });
      else if (/[\s\u0000-\u001f\u007f]/.test(input.accessToken))
        violations.push({
          field: 'repository.accessToken',
          description: 'must not contain spaces or control characters',
        });
    }
    if (input.apiUrl !== undefined) {
      const provider = (input.provider as GitProvider | undefined) ?? guessProvider(url.host);
      violations.push(...this.#checkApiUrl(input.apiUrl, provider));
    }
    return { url, violations };
  }

  /** A commit status API: https, no credentials, a public address unless the operator allows private ones. */
  #checkApiUrl(apiUrl: string, provider: GitProvider): FieldViolation[] {
    const field = 'repository.apiUrl';
    if (!takesCommitStatuses(provider))
      return [{ field, description: 'commit statuses go to GitHub and Gitea/Forgejo only: leave it out' }];
    let parsed: URL | undefined;
    try {
      parsed = new URL(apiUrl);
    } catch {
      parsed = undefined;
    }
    if (parsed?.protocol !== 'https:' || apiUrl.length > 2048 || parsed.search !== '' || parsed.hash !== '')
      return [{ field, description: 'must be an https URL of at most 2048 characters, without a query' }];
    if (parsed.username !== '' || parsed.password !== '')
      return [{ field, description: 'must not hold credentials: the access token is sent as a header' }];
    if (!this.deps.settings.allowPrivate && isLocalOrPrivateHost(parsed.hostname))
      return [
        {
          field,
          description: privateHostRule('ATOLL_GIT_ALLOW_PRIVATE'),
        },
      ];
    return [];
  }

  /** The repository as the API shows it. */
  toWire(account: string, app: AppRecord, record: RepositoryRecord): Repository {
    const check = checkRepositoryUrl(record.url);
    const path = check.ok ? check.repository.path : record.url;
    const fingerprint = hostKeyFingerprint(record.knownHost);
    return {
      url: record.url,
      provider: record.provider,
      name: path,
      displayName: repositoryDisplayName(path),
      accessTokenSet: record.accessTokenSealed !== '',
      ...(record.deployKeyPublic === '' ? {} : { deployKey: record.deployKeyPublic }),
      ...(fingerprint === undefined ? {} : { hostKeyFingerprint: fingerprint }),
      webhookUrl: this.webhookUrl(account, app.appId),
      statusApiUrl:
        record.accessTokenSealed === '' || !check.ok
          ? ''
          : statusApiBase(record.provider, check.repository.host, record.apiUrl),
    };
  }

  webhookUrl(account: string, appId: string): string {
    return `${this.deps.settings.publicUrl}/wh/v1/${appName(account, appId)}/repository:push`;
  }

  /** A new webhook secret for the application's repository, shown once. */
  async rotateWebhookSecret(
    account: string,
    app: AppRecord,
  ): Promise<{ webhookUrl: string; secret: string }> {
    if (app.sourceKind !== 'repository')
      throw new AtollError(
        'NOT_A_REPOSITORY_APP',
        `${appName(account, app.appId)} is a direct-upload application: it has no repository webhook`,
      );
    const secret = newWebhookSecret();
    await this.deps.store.apps.updateRepository(
      app.id,
      { webhookSecretSealed: this.deps.secretBox.seal(secret) },
      this.deps.clock.now(),
    );
    return { webhookUrl: this.webhookUrl(account, app.appId), secret };
  }
}

/** Forgets the ssh host key trusted so far: the next fetch trusts the one it meets (owners, after a real change). */
export async function resetHostKey(
  store: Store,
  clock: Clock,
  account: string,
  app: AppRecord,
): Promise<void> {
  if (app.sourceKind !== 'repository')
    throw new AtollError(
      'NOT_A_REPOSITORY_APP',
      `${appName(account, app.appId)} is a direct-upload application: it has no repository host key`,
    );
  await store.apps.updateRepository(app.id, { knownHost: '' }, clock.now());
}

/** 32 random bytes, URL-safe: pasted into a git host's webhook form. */
function newWebhookSecret(): string {
  return randomBytes(32).toString('base64url');
}
