/**
 * The CertificateAuthority port over an ACME CA (acme-client, HTTP-01), so that custom domains get
 * certificates without the services knowing ACME.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { dirname } from 'node:path';
import { rootCertificates } from 'node:tls';
import * as acme from 'acme-client';
import type {
  CertificateAuthority,
  ChallengeResponder,
  IssuedCertificate,
} from '../services/domains/domain-ports.js';
import type { SecretBox } from '../services/kit/platform-ports.js';

/**
 * Certificates from an ACME CA (RFC 8555) through acme-client, validated by HTTP-01: the edge
 * answers the challenge on its HTTP port. The ACME account's key is made once and kept sealed
 * with the platform key in the data folder; certificate keys are ECDSA P-256.
 */
export class AcmeCertificateAuthority implements CertificateAuthority {
  #client: Promise<acme.Client> | undefined;

  constructor(
    private readonly options: {
      readonly directoryUrl: string;
      readonly email: string;
      /** Extra roots for the ACME server's own HTTPS (a private CA such as Pebble). */
      readonly caFile: string | undefined;
      /** Where the sealed account key lives. */
      readonly accountKeyFile: string;
      readonly secretBox: SecretBox;
    },
  ) {
    if (options.caFile !== undefined)
      // acme-client talks through its own axios instance: the extra root applies to it alone.
      acme.axios.defaults.httpsAgent = new Agent({
        ca: [...rootCertificates, readFileSync(options.caFile, 'utf8')],
      });
  }

  async issue(domain: string, challenges: ChallengeResponder): Promise<IssuedCertificate> {
    const client = await this.#account();
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

  #account(): Promise<acme.Client> {
    this.#client ??= (async () => {
      const { accountKeyFile, secretBox } = this.options;
      let accountKey: string;
      if (existsSync(accountKeyFile)) accountKey = secretBox.open(readFileSync(accountKeyFile, 'utf8'));
      else {
        accountKey = (await acme.crypto.createPrivateEcdsaKey()).toString();
        mkdirSync(dirname(accountKeyFile), { recursive: true });
        writeFileSync(accountKeyFile, secretBox.seal(accountKey), { mode: 0o600 });
      }
      return new acme.Client({ directoryUrl: this.options.directoryUrl, accountKey });
    })().catch((error: unknown) => {
      this.#client = undefined;
      throw error;
    });
    return this.#client;
  }
}
