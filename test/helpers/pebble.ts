/**
 * Pebble, the ACME test CA, on loopback, so that certificates are issued for real in the custom domain
 * tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { writeLoopbackCertificate } from './loopback-certificate.js';
import { findFreePort } from '../../src/sandbox/free-port.js';

export interface PreparedPebble {
  readonly folder: string;
  /** Pebble's own (self-signed) certificate: what ATOLL_ACME_CA_FILE names. */
  readonly caFile: string;
  readonly port: number;
  readonly managementPort: number;
  readonly directoryUrl: string;
}

/**
 * Pebble, the ACME test CA (Debian package `pebble`), on loopback ports: it resolves the
 * domains it validates through the test's DNS server and checks HTTP-01 challenges on the
 * edge's HTTP port. Its own HTTPS uses a throwaway self-signed certificate (`caFile`).
 */
export class TestPebble {
  private constructor(
    private readonly child: ChildProcess,
    private readonly folder: string,
    readonly port: number,
    readonly managementPort: number,
    readonly caFile: string,
  ) {}

  /**
   * Ports and Pebble's own certificate first: the directory URL and the CA file go into the
   * platform's settings before the edge listens, and Pebble needs the edge's port.
   */
  static async prepare(): Promise<PreparedPebble> {
    const folder = mkdtempSync(join(tmpdir(), 'atoll-pebble-'));
    const { certFile: caFile } = writeLoopbackCertificate(folder, 'pebble');
    const port = await findFreePort();
    return {
      folder,
      caFile,
      port,
      managementPort: await findFreePort(),
      directoryUrl: `https://127.0.0.1:${String(port)}/dir`,
    };
  }

  static async start(
    prepared: PreparedPebble,
    options: {
      /** Where HTTP-01 challenges are fetched: the edge's HTTP port. */
      readonly httpPort: number;
      readonly dnsServer: string;
    },
  ): Promise<TestPebble> {
    const { folder } = prepared;
    const config = join(folder, 'pebble-config.json');
    writeFileSync(
      config,
      JSON.stringify({
        pebble: {
          listenAddress: `127.0.0.1:${String(prepared.port)}`,
          managementListenAddress: `127.0.0.1:${String(prepared.managementPort)}`,
          certificate: prepared.caFile,
          privateKey: join(folder, 'key.pem'),
          httpPort: options.httpPort,
          tlsPort: await findFreePort(),
          ocspResponderURL: '',
          externalAccountBindingRequired: false,
        },
      }),
    );
    const child = spawn('pebble', ['-config', config, '-dnsserver', options.dnsServer], {
      stdio: ['ignore', 'pipe', 'pipe'],
      // No pauses before validation, and no random nonce rejections: the test is about Atoll.
      env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0' },
    });
    const output: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    const pebble = new TestPebble(child, folder, prepared.port, prepared.managementPort, prepared.caFile);
    const deadline = Date.now() + 15_000;
    while (!(await answers(prepared.port))) {
      if (Date.now() > deadline || child.exitCode !== null) {
        await pebble.stop();
        throw new Error(`pebble did not start: ${output.join('')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return pebble;
  }

  /** The root that Pebble's issued certificates chain to (it makes a new one at every start). */
  async issuingRoot(): Promise<string> {
    const answer = await request(`https://127.0.0.1:${String(this.managementPort)}/roots/0`, {
      dispatcher: new Agent({ connect: { ca: readFileSync(this.caFile, 'utf8') } }),
    });
    return answer.body.text();
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    rmSync(this.folder, { recursive: true, force: true });
  }
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      resolve(false);
    });
  });
}
