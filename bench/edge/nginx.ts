/**
 * nginx for bench/edge: one master and one worker (or --workers of them), everything it writes (pid, error log, temp
 * folders) under the run's temp folder, two server blocks on free loopback ports: the static
 * site folder, and `proxy_pass` to the upstream app over a keep-alive pool of 64 connections.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Spawned } from './spawned.js';
import { freeLoopbackPort, waitForPort } from './tools.js';

export interface NginxServer {
  readonly process: Spawned;
  readonly staticPort: number;
  readonly proxyPort: number;
}

export function nginxConfig(options: {
  readonly prefix: string;
  readonly siteRoot: string;
  readonly staticPort: number;
  readonly proxyPort: number;
  readonly upstreamPort: number;
  /** worker_processes (default 1). */
  readonly workers?: number;
}): string {
  const { prefix } = options;
  return `# bench/edge: written for one run, removed with its temp folder.
daemon off;
master_process on;
worker_processes ${String(options.workers ?? 1)};
pid ${join(prefix, 'nginx.pid')};
error_log ${join(prefix, 'error.log')} warn;

events {
  worker_connections 4096;
}

http {
  access_log off;
  sendfile on;
  # Connections as long-lived as Node's (which has no per-connection request limit): the
  # default of 1,000 requests would make wrk and the upstream pool reconnect every few ms.
  keepalive_requests 1000000;
  keepalive_timeout 65s;
  types {
    text/html html;
    text/css css;
  }
  default_type application/octet-stream;
  client_body_temp_path ${join(prefix, 'client_body')};
  proxy_temp_path ${join(prefix, 'proxy')};
  fastcgi_temp_path ${join(prefix, 'fastcgi')};
  uwsgi_temp_path ${join(prefix, 'uwsgi')};
  scgi_temp_path ${join(prefix, 'scgi')};

  upstream bench_app {
    server 127.0.0.1:${String(options.upstreamPort)};
    keepalive 64;
    keepalive_requests 1000000;
    keepalive_timeout 60s;
  }

  server {
    listen 127.0.0.1:${String(options.staticPort)};
    root ${options.siteRoot};
    location / {
    }
  }

  server {
    listen 127.0.0.1:${String(options.proxyPort)};
    location / {
      proxy_pass http://bench_app;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`;
}

/** Writes the configuration, checks it with `nginx -t`, starts nginx and waits until both ports accept. */
export async function startNginx(options: {
  readonly executable: string;
  readonly prefix: string;
  readonly siteRoot: string;
  readonly upstreamPort: number;
  readonly workers?: number;
}): Promise<NginxServer> {
  const staticPort = await freeLoopbackPort();
  let proxyPort = await freeLoopbackPort();
  while (proxyPort === staticPort) proxyPort = await freeLoopbackPort();
  const conf = join(options.prefix, 'nginx.conf');
  writeFileSync(conf, nginxConfig({ ...options, staticPort, proxyPort }));
  const args = ['-c', conf, '-p', options.prefix];
  try {
    await promisify(execFile)(options.executable, ['-t', ...args]);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? String(error);
    throw new Error(`nginx -t rejected the generated configuration ${conf}:\n${stderr}`);
  }
  const spawned = new Spawned(
    'nginx',
    spawn(options.executable, args, { stdio: ['ignore', 'ignore', 'pipe'] }),
  );
  try {
    await waitForPort(staticPort, 10_000, () => spawned.hasExited);
    await waitForPort(proxyPort, 10_000, () => spawned.hasExited);
  } catch (error) {
    const log = join(options.prefix, 'error.log');
    const tail = existsSync(log) ? readFileSync(log, 'utf8').slice(-2000) : '(no error log)';
    await spawned.stop(2_000);
    throw new Error(`nginx did not start: ${(error as Error).message}\n${tail}`);
  }
  return { process: spawned, staticPort, proxyPort };
}
