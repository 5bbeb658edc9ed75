/**
 * The CertificateAuthority port over an ACME CA (acme-client, HTTP-01), so that custom domains get
 * certificates without the services knowing ACME.
 */
import { existsSync, readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { rootCertificates } from 'node:tls';
import type * as AcmeClient from 'acme-client';
import type {
  CertificateAuthority,
  ChallengeResponder,
  IssuedCertificate,
} from '../services/domains/domain-ports.js';
import type { Clock, SecretBox } from '../services/kit/platform-ports.js';
import type { AcmeAccountKeysRepository } from '../services/kit/store-port.js';
import { loadOnce } from '../services/kit/load-once.js';

/** acme-client, imported at the first order (src/services/kit/load-once.ts). */
const loadAcme = loadOnce(() => import('acme-client'));

/**
 * Certificates from an ACME CA (RFC 8555) through acme-client, validated by HTTP-01: the edge
 * answers the challenge on its HTTP port. The ACME account's key is made once and kept sealed
 * with the platform key in the store, so that every scheduler process orders under the one account;
 * certificate keys are ECDSA P-256.
 */
export class AcmeCertificateAuthority implements CertificateAuthority {
  #client: Promise<AcmeClient.Client> | undefined;
  /** The extra roots of caFile, read at construction so that a missing file fails the start. */
  readonly #extraRoots: string | undefined;
  #agent: Agent | undefined;

  constructor(
    private readonly options: {
      readonly directoryUrl: string;
      readonly email: string;
      /** Extra roots for the ACME server's own HTTPS (a private CA such as Pebble). */
      readonly caFile: string | undefined;
      /** Where the sealed account key lives: the store, shared by every process of the platform. */
      readonly accountKeys: AcmeAccountKeysRepository;
      /**
       * Where releases before the store kept it (the data folder): read once, when the store has none,
       * so that an existing install keeps its account.
       */
      readonly legacyAccountKeyFile: string | undefined;
      readonly secretBox: SecretBox;
      readonly clock: Clock;
    },
  ) {
    this.#extraRoots = options.caFile === undefined ? undefined : readFileSync(options.caFile, 'utf8');
  }

  /** acme-client, with the extra roots on its own axios instance (they apply to it alone). */
  async #acme(): Promise<typeof AcmeClient> {
    const acme = await loadAcme();
    if (this.#extraRoots !== undefined)
      acme.axios.defaults.httpsAgent = this.#agent ??= new Agent({
        ca: [...rootCertificates, this.#extraRoots],
      });
    return acme;
  }

  async issue(domain: string, challenges: ChallengeResponder): Promise<IssuedCertificate> {
    const client = await this.#account();
    const acme = await this.#acme();
    const [key, csr] = await acme.crypto.createCsr(
      { commonName: domain, altNames: [domain] },
      await acme.crypto.createPrivateEcdsaKey(),
    );
    const chainPem = await client.auto({
      csr,
      email: this.options.email,
      termsOfServiceAgreed: true,
      challengePriority: ['http-01'],
      // The client's own pre-check would resolve the domain from here; the CA's check is the one that counts.
      skipChallengeVerification: true,
      challengeCreateFn: async (_authz, challenge, keyAuthorization) => {
        await challenges.setChallenge(challenge.token, keyAuthorization);
      },
      challengeRemoveFn: async (_authz, challenge) => {
        await challenges.removeChallenge(challenge.token);
      },
    });
    const info = acme.crypto.readCertificateInfo(chainPem);
    return { chainPem, keyPem: key.toString(), notAfter: info.notAfter };
  }

  /**
   * The account's URL at the CA, registering it on first use (idempotent: the CA answers the existing
   * account for a known key). Says which account this platform orders under.
   */
  async accountUrl(): Promise<string> {
    const client = await this.#account();
    await client.createAccount({
      termsOfServiceAgreed: true,
      contact: [`mailto:${this.options.email}`],
    });
    return client.getAccountUrl();
  }

  #account(): Promise<AcmeClient.Client> {
    this.#client ??= (async () => {
      const acme = await this.#acme();
      const accountKey = this.options.secretBox.open(await this.#sealedAccountKey());
      return new acme.Client({ directoryUrl: this.options.directoryUrl, accountKey });
    })().catch((error: unknown) => {
      this.#client = undefined;
      throw error;
    });
    return this.#client;
  }

  /**
   * The platform's sealed account key: the store's; else the data folder's of an older release
   * (moved into the store); else a new one. Insert-if-absent: a process that loses a race of two
   * creators uses the winner's key, so the platform ends with one account. The file is left in place
   * (an older release rolled back to still finds it); the store's key is read first from now on.
   */
  async #sealedAccountKey(): Promise<string> {
    const { accountKeys, legacyAccountKeyFile, secretBox, clock } = this.options;
    const stored = await accountKeys.find();
    if (stored !== undefined) return stored;
    let sealed: string;
    if (legacyAccountKeyFile !== undefined && existsSync(legacyAccountKeyFile)) {
      sealed = readFileSync(legacyAccountKeyFile, 'utf8').trim();
      // Opened before it is shared: a file sealed with another platform key is refused here.
      secretBox.open(sealed);
    } else sealed = secretBox.seal((await (await this.#acme()).crypto.createPrivateEcdsaKey()).toString());
    return accountKeys.createIfAbsent(sealed, clock.now());
  }
}
