/**
 * A real git smart-HTTP server on loopback (git http-backend run as CGI behind a Node http server) with
 * bare repositories tests create and commit to, for the tests of building sites from git repositories:
 * clones and fetches go through the same protocol (v2, shallow, Basic auth) as against a real git host.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, normalize, sep } from 'node:path';
import { writeLoopbackCertificate } from './loopback-certificate.js';

export interface GitHttpServer {
  /** https://127.0.0.1:<port> */
  readonly origin: string;
  /** The server's self-signed certificate, for clients to trust (GIT_SSL_CAINFO, ATOLL_GIT_CA_FILE). */
  readonly caFile: string;
  /** The folder of the bare repositories (`<name>.git`): an ssh server can serve them too. */
  readonly repositories: string;
  /** The clone URL of a repository made with createRepository: `${origin}/<name>.git` */
  url(name: string): string;
  /** A bare repository <root>/<name>.git with one branch (default 'main') holding the files; returns the commit sha. */
  createRepository(
    name: string,
    files: Record<string, string>,
    options?: { branch?: string; message?: string },
  ): Promise<string>;
  /**
   * Commits files (added or replaced; a null value deletes the file) on a branch of the repository (the
   * branch is created from the default branch if missing) and pushes it into the bare repository
   * locally; returns the new commit sha. A full ref (`refs/pull/5/head`) is written from the default branch.
   */
  commit(
    name: string,
    branch: string,
    files: Record<string, string | null>,
    message: string,
  ): Promise<string>;
  /**
   * Like commit, but adds a symbolic link at `path` pointing at `target`, which is stored as given (it may
   * well point outside the repository: that is what tests of checkouts refusing such links need).
   */
  commitSymlink(name: string, branch: string, path: string, target: string, message: string): Promise<string>;
  /**
   * Adds the repository `submodule` (made with createRepository on this server) as a submodule at `path`,
   * with the relative URL `../<submodule>.git` that hosts recommend, at its default branch's head.
   */
  commitSubmodule(
    name: string,
    branch: string,
    path: string,
    submodule: string,
    message: string,
  ): Promise<string>;
  /**
   * Commits `path` as a Git LFS pointer (and `.gitattributes` naming it), the content kept by the
   * server's LFS API (`<repo>.git/info/lfs/objects/batch`, basic transfer) for clients to download.
   */
  commitLfsFile(
    name: string,
    branch: string,
    path: string,
    content: string,
    message: string,
  ): Promise<string>;
  /** Every request seen: method, url (path and query), the Authorization header if any, and the status answered. */
  readonly requests: readonly {
    method: string;
    url: string;
    authorization: string | undefined;
    status: number;
  }[];
  stop(): Promise<void>;
}

interface RequestRecord {
  method: string;
  url: string;
  authorization: string | undefined;
  status: number;
}

/** Author and committer of every commit, so the machine's git identity (or its absence) never matters. */
const IDENTITY = ['-c', 'user.name=Atoll Test', '-c', 'user.email=test@atoll.invalid'];

/** Starts the server on a free loopback port, its repositories under a fresh temporary folder. */
export async function startGitHttpServer(
  options: {
    /** When set, every request must carry Basic auth whose password is this token (any user name); others get 401 with WWW-Authenticate: Basic realm="git". */
    token?: string;
  } = {},
): Promise<GitHttpServer> {
  const base = await mkdtemp(join(tmpdir(), 'atoll-git-http-'));
  try {
    await mkdir(join(base, 'repos'));
    await mkdir(join(base, 'home'));
    await mkdir(join(base, 'work'));
    // HTTPS, as the platform fetches nothing else: a self-signed certificate for 127.0.0.1, its file
    // handed to the platform as an operator's own CA (ATOLL_GIT_CA_FILE).
    const { certFile: caFile, keyFile } = writeLoopbackCertificate(base, 'atoll-test-git');
    const self = new TestGitHttpServer(base, options.token, {
      caFile,
      cert: await readFile(caFile),
      key: await readFile(keyFile),
    });
    await self.listen();
    return self;
  } catch (error) {
    await rm(base, { recursive: true, force: true });
    throw error;
  }
}

class TestGitHttpServer implements GitHttpServer {
  readonly #base: string;
  /** GIT_PROJECT_ROOT: only the bare repositories live here, so nothing else is served. */
  readonly #root: string;
  readonly #token: string | undefined;
  readonly #server: Server;
  readonly #requests: RequestRecord[] = [];
  /** Per repository, the tail of its queued commits: two commits at once would race on the push. */
  readonly #queues = new Map<string, Promise<unknown>>();
  /** Git LFS objects by their sha256 oid. */
  readonly #lfsObjects = new Map<string, Buffer>();
  #port = 0;
  #workFolders = 0;

  /** The server's self-signed certificate: the CA a client trusts it by. */
  readonly caFile: string;

  constructor(
    base: string,
    token: string | undefined,
    tls: { readonly caFile: string; readonly cert: Buffer; readonly key: Buffer },
  ) {
    this.#base = base;
    this.#root = join(base, 'repos');
    this.#token = token;
    this.caFile = tls.caFile;
    this.#server = createServer({ cert: tls.cert, key: tls.key }, (request, response) => {
      this.#handle(request, response);
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(0, '127.0.0.1', () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    const address = this.#server.address();
    if (typeof address !== 'object' || address === null)
      throw new Error('the git HTTP server has no address');
    this.#port = address.port;
  }

  get repositories(): string {
    return this.#root;
  }

  get origin(): string {
    return `https://127.0.0.1:${String(this.#port)}`;
  }

  get requests(): readonly RequestRecord[] {
    return this.#requests;
  }

  url(name: string): string {
    return `${this.origin}/${checkName(name)}.git`;
  }

  createRepository(
    name: string,
    files: Record<string, string>,
    options: { branch?: string; message?: string } = {},
  ): Promise<string> {
    const bare = join(this.#root, `${checkName(name)}.git`);
    const branch = options.branch ?? 'main';
    return this.#serialize(name, async () => {
      const work = await this.#workFolder();
      try {
        // -b on both sides: the default branch never depends on init.defaultBranch, and the bare
        // repository's HEAD names it, which is what a clone checks out.
        await this.#git(['init', '--quiet', '-b', branch, work]);
        await writeFiles(work, files);
        await this.#git(['add', '-A'], work);
        await this.#git(
          ['commit', '--quiet', '--allow-empty', '-m', options.message ?? 'Initial commit'],
          work,
        );
        await this.#git(['init', '--quiet', '--bare', '-b', branch, bare]);
        await this.#git(['push', '--quiet', bare, `HEAD:refs/heads/${branch}`], work);
        return await this.#git(['rev-parse', 'HEAD'], work);
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    });
  }

  commit(
    name: string,
    branch: string,
    files: Record<string, string | null>,
    message: string,
  ): Promise<string> {
    return this.#commitChange(name, branch, message, (work) => writeFiles(work, files));
  }

  commitSymlink(
    name: string,
    branch: string,
    path: string,
    target: string,
    message: string,
  ): Promise<string> {
    return this.#commitChange(name, branch, message, async (work) => {
      const link = join(work, checkPath(path));
      await mkdir(dirname(link), { recursive: true });
      await rm(link, { force: true });
      await symlink(target, link);
    });
  }

  commitSubmodule(
    name: string,
    branch: string,
    path: string,
    submodule: string,
    message: string,
  ): Promise<string> {
    return this.#commitChange(name, branch, message, async (work) => {
      // The relative URL resolves against the bare repository's path here, and against the server's URL for a clone.
      await this.#git(
        [
          '-c',
          'protocol.file.allow=always',
          'submodule',
          'add',
          '--quiet',
          '--',
          `../${checkName(submodule)}.git`,
          checkPath(path),
        ],
        work,
      );
    });
  }

  commitLfsFile(
    name: string,
    branch: string,
    path: string,
    content: string,
    message: string,
  ): Promise<string> {
    const bytes = Buffer.from(content);
    const oid = createHash('sha256').update(bytes).digest('hex');
    this.#lfsObjects.set(oid, bytes);
    return this.#commitChange(name, branch, message, (work) =>
      writeFiles(work, {
        '.gitattributes': `${path} filter=lfs diff=lfs merge=lfs -text\n`,
        [path]: `version https://git-lfs.github.com/spec/v1\noid sha256:${oid}\nsize ${String(bytes.length)}\n`,
      }),
    );
  }

  /** Clones the bare repository, checks out the branch, makes the change, commits and pushes; returns the sha. */
  #commitChange(
    name: string,
    branch: string,
    message: string,
    change: (work: string) => Promise<void>,
  ): Promise<string> {
    const bare = join(this.#root, `${checkName(name)}.git`);
    return this.#serialize(name, async () => {
      const work = await this.#workFolder();
      try {
        await this.#git(['clone', '--quiet', bare, work]);
        // A full ref (refs/pull/5/head, as GitHub keeps a fork's request) is written from the default branch.
        const ref = branch.startsWith('refs/') ? branch : `refs/heads/${branch}`;
        const exists = ref.startsWith('refs/heads/')
          ? await this.#git(['branch', '--remotes', '--list', `origin/${branch}`], work)
          : '';
        // origin/HEAD follows the bare repository's HEAD, i.e. its default branch.
        const start = exists === '' ? 'refs/remotes/origin/HEAD' : `refs/remotes/origin/${branch}`;
        await this.#git(['checkout', '--quiet', '--no-track', '-B', 'change', start], work);
        await change(work);
        await this.#git(['add', '-A'], work);
        await this.#git(['commit', '--quiet', '--allow-empty', '-m', message], work);
        await this.#git(['push', '--quiet', 'origin', `HEAD:${ref}`], work);
        return await this.#git(['rev-parse', 'HEAD'], work);
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    });
  }

  async stop(): Promise<void> {
    const closed = new Promise<void>((resolve, reject) => {
      this.#server.close((error) => {
        if (error) reject(error);
        else resolve();
      });
    });
    // git keeps its connection alive after a clone; close() alone would wait for it to time out.
    this.#server.closeIdleConnections();
    await closed;
    await Promise.allSettled(this.#queues.values());
    await rm(this.#base, { recursive: true, force: true });
  }

  #serialize<T>(name: string, task: () => Promise<T>): Promise<T> {
    const result = (this.#queues.get(name) ?? Promise.resolve()).then(task, task);
    this.#queues.set(
      name,
      result.catch(() => undefined),
    );
    return result;
  }

  async #workFolder(): Promise<string> {
    this.#workFolders += 1;
    const work = join(this.#base, 'work', String(this.#workFolders));
    await mkdir(work);
    return work;
  }

  /** A git command without a shell, in an environment where only what the helper sets counts. */
  #git(args: readonly string[], cwd = this.#base): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(
        'git',
        [...IDENTITY, ...args],
        { cwd, env: this.#gitEnvironment() },
        (error, stdout, stderr) => {
          if (error) reject(new Error(`git ${args.join(' ')} failed: ${stderr.trim() || error.message}`));
          else resolve(stdout.trim());
        },
      );
    });
  }

  /**
   * Not process.env: a GIT_DIR, GIT_ASKPASS or credential helper of the machine's (or of a git hook
   * running the tests) must not reach these commands. HOME is the helper's own, so no ~/.gitconfig.
   */
  #gitEnvironment(): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      HOME: join(this.#base, 'home'),
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
      LC_ALL: 'C',
    };
  }

  #handle(request: IncomingMessage, response: ServerResponse): void {
    const record: RequestRecord = {
      method: request.method ?? 'GET',
      url: request.url ?? '/',
      authorization: request.headers.authorization,
      status: 0,
    };
    // Kept in arrival order; the status is filled in once answered.
    this.#requests.push(record);
    response.on('close', () => {
      record.status = response.statusCode;
    });

    const user = basicUser(request.headers.authorization, this.#token);
    if (this.#token !== undefined && user === undefined) {
      request.resume();
      response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"', 'Content-Type': 'text/plain' });
      response.end('Authentication required\n');
      return;
    }
    const url = new URL(request.url ?? '/', this.origin);
    if (request.method === 'POST' && url.pathname.endsWith('.git/info/lfs/objects/batch')) {
      this.#lfsBatch(request, response);
      return;
    }
    const object = /^\/lfs-objects\/([0-9a-f]{64})$/.exec(url.pathname)?.[1];
    if (request.method === 'GET' && object !== undefined) {
      const bytes = this.#lfsObjects.get(object);
      if (bytes === undefined) response.writeHead(404).end();
      else response.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(bytes);
      return;
    }
    this.#runBackend(request, response, user);
  }

  /** The Git LFS batch API (download only): where each object it knows can be fetched. */
  #lfsBatch(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const asked =
        (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { objects?: { oid: string; size: number }[] })
          .objects ?? [];
      const objects = asked.map(({ oid, size }) =>
        this.#lfsObjects.has(oid)
          ? {
              oid,
              size,
              authenticated: true,
              // As hosted LFS servers do: the download carries the credential it needs.
              actions: {
                download: {
                  href: `${this.origin}/lfs-objects/${oid}`,
                  ...(request.headers.authorization === undefined
                    ? {}
                    : { header: { Authorization: request.headers.authorization } }),
                },
              },
            }
          : { oid, size, error: { code: 404, message: 'no such object' } },
      );
      response
        .writeHead(200, { 'Content-Type': 'application/vnd.git-lfs+json' })
        .end(JSON.stringify({ transfer: 'basic', objects }));
    });
  }

  /** One CGI run of git http-backend (RFC 3875): request body to its stdin, its stdout parsed as the response. */
  #runBackend(request: IncomingMessage, response: ServerResponse, user: string | undefined): void {
    const url = new URL(request.url ?? '/', this.origin);
    const env: NodeJS.ProcessEnv = {
      ...this.#gitEnvironment(),
      GIT_PROJECT_ROOT: this.#root,
      GIT_HTTP_EXPORT_ALL: '1',
      GATEWAY_INTERFACE: 'CGI/1.1',
      SERVER_PROTOCOL: `HTTP/${request.httpVersion}`,
      REQUEST_METHOD: request.method ?? 'GET',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.replace(/^\?/, ''),
      REMOTE_ADDR: request.socket.remoteAddress ?? '127.0.0.1',
    };
    const headers = request.headers;
    if (headers['content-type'] !== undefined) env.CONTENT_TYPE = headers['content-type'];
    // Absent for a chunked body (git sends large pushes and fetches so); http-backend then reads to EOF.
    if (headers['content-length'] !== undefined) env.CONTENT_LENGTH = headers['content-length'];
    if (user !== undefined) env.REMOTE_USER = user;
    const protocol = headers['git-protocol'];
    if (typeof protocol === 'string') env.GIT_PROTOCOL = protocol;
    // git gzips large request bodies; http-backend inflates them itself when told so.
    const encoding = headers['content-encoding']?.trim().toLowerCase();
    if (encoding === 'gzip' || encoding === 'x-gzip') env.HTTP_CONTENT_ENCODING = encoding;

    const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const stderr: Buffer[] = [];
    let pending: Buffer | undefined = Buffer.alloc(0);

    const fail = (message: string) => {
      // Both 'error' and 'close' come when git cannot be started; answer once.
      if (response.writableEnded) return;
      if (response.headersSent) response.destroy();
      else response.writeHead(500, { 'Content-Type': 'text/plain' }).end(`${message}\n`);
    };
    child.on('error', (error) => {
      fail(`git http-backend could not start: ${error.message}`);
    });
    // http-backend may answer (an error, say) without reading the whole body; the EPIPE is no failure.
    child.stdin.on('error', () => undefined);
    request.pipe(child.stdin);
    // A client that went away needs no more output.
    response.on('close', () => {
      if (child.exitCode === null && child.signalCode === null) child.kill();
    });
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.stdout.on('data', (chunk: Buffer) => {
      let body = chunk;
      if (pending !== undefined) {
        pending = Buffer.concat([pending, chunk]);
        const head = splitHead(pending);
        if (head === undefined) return;
        pending = undefined;
        response.statusCode = head.status;
        for (const [field, value] of head.fields) response.appendHeader(field, value);
        response.flushHeaders();
        body = head.rest;
      }
      if (body.length > 0 && !response.write(body)) {
        child.stdout.pause();
        response.once('drain', () => child.stdout.resume());
      }
    });
    child.on('close', (code) => {
      if (pending === undefined) response.end();
      else {
        const detail = Buffer.concat(stderr).toString('utf8').trim();
        fail(`git http-backend exited (${String(code)}) without a response: ${detail}`);
      }
    });
  }
}

/** A repository name usable as a path under the root: relative, without `..`, `.git` added by the helper. */
function checkName(name: string): string {
  if (name === '' || isAbsolute(name) || normalize(name).split(sep).includes('..') || name.endsWith('.git'))
    throw new Error(`bad repository name: ${JSON.stringify(name)}`);
  return name;
}

/** A file path inside the work tree: relative and without `..`, so a test cannot write outside it. */
function checkPath(path: string): string {
  if (path === '' || isAbsolute(path) || normalize(path).split(sep).includes('..'))
    throw new Error(`bad file path: ${JSON.stringify(path)}`);
  return path;
}

/** Writes (creating parent folders) or, for null, deletes files in a work tree. */
async function writeFiles(work: string, files: Record<string, string | null>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    const target = join(work, checkPath(path));
    if (text === null) {
      // Not force: deleting a file that is not there is a mistake in the test.
      await rm(target);
    } else {
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, text);
    }
  }
}

/**
 * The user name of a Basic Authorization header whose password is the token; with no token, of any
 * well-formed header. Undefined when there is none or it does not match.
 */
function basicUser(header: string | undefined, token: string | undefined): string | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  if (token !== undefined && decoded.slice(colon + 1) !== token) return undefined;
  return decoded.slice(0, colon);
}

/** The CGI response head, once all of it is in: `Status:` gives the status (200 without one), the rest are fields. */
function splitHead(output: Buffer): { status: number; fields: [string, string][]; rest: Buffer } | undefined {
  const crlf = output.indexOf('\r\n\r\n');
  const lf = output.indexOf('\n\n');
  let end: number;
  let separator: number;
  if (crlf >= 0 && (lf < 0 || crlf < lf)) [end, separator] = [crlf, 4];
  else if (lf >= 0) [end, separator] = [lf, 2];
  else return undefined;
  let status = 200;
  const fields: [string, string][] = [];
  for (const line of output.subarray(0, end).toString('latin1').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const field = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (field.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 500;
    else fields.push([field, value]);
  }
  return { status, fields, rest: output.subarray(end + separator) };
}
