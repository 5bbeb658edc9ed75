// The first process of a hosted app's sandbox, run by the app's own Node.js (18 or later), so
// plain JavaScript with Node's built-ins only. It
// - forwards a loopback port inside the sandbox to the platform services' Unix socket, the only
//   way out to the platform (stack-notes.md §9), and writes that address into the variables
//   whose value holds "{atoll-platform-services}";
// - starts the app in a process group of its own and passes its exit on;
// - stops the app gracefully (SIGTERM to the group, SIGKILL after the grace time) when its
//   standard input closes: the platform closes it to stop a deployment, and it closes by itself
//   when the platform dies.
// Usage: app-launcher.mjs --platform-socket PATH --platform-port N --grace-ms MS -- COMMAND ARGS...
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { constants } from 'node:os';

function readOptions(argv) {
  const split = argv.indexOf('--');
  if (split < 0 || split === argv.length - 1) throw new Error('usage: app-launcher.mjs [options] -- command');
  const options = new Map();
  const flags = argv.slice(0, split);
  for (let i = 0; i + 1 < flags.length; i += 2) options.set(flags[i], flags[i + 1]);
  return {
    socket: options.get('--platform-socket'),
    port: Number(options.get('--platform-port') ?? '0'),
    graceMs: Number(options.get('--grace-ms') ?? '10000'),
    command: argv.slice(split + 1),
  };
}

function forwardPlatform(socketPath, port) {
  return new Promise((resolve, reject) => {
    const server = createServer((visitor) => {
      const upstream = connect(socketPath);
      visitor.pipe(upstream).pipe(visitor);
      const close = () => {
        visitor.destroy();
        upstream.destroy();
      };
      visitor.on('error', close);
      upstream.on('error', close);
    });
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server.address().port));
  });
}

const options = readOptions(process.argv.slice(2));
const env = { ...process.env };
if (options.socket) {
  const port = await forwardPlatform(options.socket, options.port);
  for (const [key, value] of Object.entries(env)) {
    if (value?.includes('{atoll-platform-services}'))
      env[key] = value.replaceAll('{atoll-platform-services}', `http://127.0.0.1:${port}`);
  }
}

const [command, ...args] = options.command;
const app = spawn(command, args, { env, stdio: ['ignore', 'inherit', 'inherit'], detached: true });
let stopping = false;
const signalGroup = (signal) => {
  try {
    process.kill(-app.pid, signal);
  } catch {
    // The group is gone already.
  }
};
const stop = () => {
  if (stopping) return;
  stopping = true;
  signalGroup('SIGTERM');
  setTimeout(() => signalGroup('SIGKILL'), options.graceMs).unref();
};
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.on('error', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
app.on('error', (error) => {
  console.error(`[atoll] could not start ${command}: ${error.message}`);
  process.exit(127);
});
app.on('exit', (code, signal) => {
  // Whatever the app left behind in its group goes with it.
  signalGroup('SIGKILL');
  process.exit(code ?? 128 + (constants.signals[signal] ?? 15));
});
