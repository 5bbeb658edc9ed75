/**
 * A self-signed certificate for a test server on loopback (127.0.0.1 and localhost), made with
 * openssl: the certificate is its own CA, handed to the platform as the operator's.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** Writes `cert.pem` and `key.pem` (P-256, valid 2 days) into `folder`; returns their paths. */
export function writeLoopbackCertificate(
  folder: string,
  commonName: string,
): { readonly certFile: string; readonly keyFile: string } {
  const certFile = join(folder, 'cert.pem');
  const keyFile = join(folder, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      `/CN=${commonName}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'ignore', env: { PATH: '/usr/bin:/bin' } },
  );
  return { certFile, keyFile };
}
