/**
 * The Bearer tokens of hosted apps: one of each kind per environment, sealed at rest, found by digest.
 */
import { randomBytes } from 'node:crypto';
import type { Clock, SecretBox } from '../kit/platform-ports.js';
import type { PlatformTokenKind, PlatformTokenRecord, Store } from '../kit/store-port.js';

/**
 * The Bearer tokens hosted apps call the platform services with (HEADLESS_APPS_API_TOKEN,
 * HEADLESS_KV_STORE_TOKEN): one of each kind per environment, random, sealed at rest (the
 * app is given them again at every start) and found by their keyed digest, never compared
 * as plaintext.
 */
export class PlatformTokens {
  constructor(private readonly deps: { store: Store; secretBox: SecretBox; clock: Clock }) {}

  async tokensFor(environmentId: string): Promise<{ appsApi: string; kvStore: string }> {
    return {
      appsApi: await this.#ensure(environmentId, 'apps-api'),
      kvStore: await this.#ensure(environmentId, 'kv-store'),
    };
  }

  /** The environment a token belongs to, if it is a token of that kind. */
  async environmentOf(token: string, kind: PlatformTokenKind): Promise<string | undefined> {
    if (token === '' || token.length > 200) return undefined;
    const record = await this.deps.store.platformTokens.findByDigest(this.deps.secretBox.digest(token));
    return record?.kind === kind ? record.environmentId : undefined;
  }

  /** A new random token of `bytes` bytes (URL-safe base64) and the record that stores it sealed and by digest. */
  mint(
    environmentId: string,
    kind: PlatformTokenKind,
    bytes = 32,
  ): { token: string; record: PlatformTokenRecord } {
    const token = randomBytes(bytes).toString('base64url');
    const { secretBox, clock } = this.deps;
    return {
      token,
      record: {
        environmentId,
        kind,
        tokenSealed: secretBox.seal(token),
        tokenDigest: secretBox.digest(token),
        createTime: clock.now(),
      },
    };
  }

  /** The token a stored record holds. */
  open(record: PlatformTokenRecord): string {
    return this.deps.secretBox.open(record.tokenSealed);
  }

  async #ensure(environmentId: string, kind: PlatformTokenKind): Promise<string> {
    const held = await this.deps.store.platformTokens.ensure(this.mint(environmentId, kind).record);
    return this.open(held);
  }
}
