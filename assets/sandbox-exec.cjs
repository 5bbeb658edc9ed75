// The last step into every sandboxed command, run by the platform's own Node.js after setpriv
// and prlimit, as the command's unprivileged uid. It reads the command's environment (a JSON
// object) from a file descriptor and starts the command with it:
// - the environment never travels as arguments, which any local user reads in
//   /proc/<pid>/cmdline (shell variables marked secret, the platform services' tokens);
// - the steps before this one run as root (bwrap, setpriv) with an empty environment, so a
//   variable the dynamic loader reads (LD_PRELOAD, LD_LIBRARY_PATH, GLIBC_TUNABLES) cannot run
//   the build's own code as root.
// Its exit is the command's: its exit code, or 128 + the signal that ended it (as a shell and
// bubblewrap say it), so the runner still tells SIGXCPU (CPU time) from SIGXFSZ (file size).
// CommonJS, run with --v8-pool-size=1: loading an ES module would start libuv's thread pool, and
// every thread counts against the sandbox's process limit (RLIMIT_NPROC); this way it takes four.
// Usage: sandbox-exec.cjs FD -- COMMAND ARGS...
'use strict';
const { spawn } = require('node:child_process');
const { closeSync, readFileSync } = require('node:fs');
const { constants } = require('node:os');

const [fdText, separator, command, ...args] = process.argv.slice(2);
const fd = Number(fdText);
if (!Number.isInteger(fd) || fd < 3 || separator !== '--' || command === undefined) {
  console.error('usage: sandbox-exec.cjs FD -- COMMAND ARGS...');
  process.exit(127);
}
const env = JSON.parse(readFileSync(fd, 'utf8'));
// Read to its end and closed: the command does not inherit it.
closeSync(fd);

const child = spawn(command, args, { env, stdio: 'inherit' });
child.on('error', (error) => {
  console.error(`[atoll] could not start ${command}: ${error.message}`);
  process.exit(127);
});
// The platform stops a sandbox by killing it whole; a signal that reaches this process alone
// (a terminal's, say) is passed on rather than leaving the command behind.
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  process.on(signal, () => {
    child.kill(signal);
  });
}
child.on('exit', (code, signal) => {
  process.exit(signal === null ? (code ?? 1) : 128 + (constants.signals[signal] ?? 0));
});
