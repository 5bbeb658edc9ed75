import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { completionScript } from '../../src/cli/shell-completion.js';
import { createAdminCommand } from '../../src/cli/commands/admin-commands.js';

/** A small tree with what the scripts must handle: aliases, nesting, value options, choices, arguments. */
function sampleProgram(): Command {
  const program = new Command('atoll').version('0.0.0').option('--profile <name>', 'connection profile');
  const apps = program.command('apps').alias('app').description('apps');
  apps.command('list');
  apps.command('get <app>');
  apps
    .command('create')
    .addOption(new Option('--region <region>', 'region').choices(['US-C', 'UK']))
    .option('-f, --file <path>', 'settings file');
  program.command('deploy [dir]').option('--app <app>', 'the app');
  program.command('internal-sync', { hidden: true }).option('--secret-flag');
  program.command('admin').command('credentials').command('list').option('--json', 'JSON output');
  return program;
}

/** Single-quotes a word for bash. */
function quote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Runs the bash script's completion function as readline would for `words` (the last one is the
 * word under the cursor) and returns COMPREPLY, sorted: bash sorts it before showing it anyway.
 */
function completeBash(script: string, words: readonly string[], cwd?: string): string[] {
  const command = [
    script,
    `COMP_WORDS=(${words.map(quote).join(' ')})`,
    `COMP_CWORD=${words.length - 1}`,
    '_atoll_completion',
    'for reply in "${COMPREPLY[@]}"; do printf "%s\\n" "$reply"; done',
  ].join('\n');
  const result = spawnSync('bash', ['-c', command], { cwd, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stderr, '');
  return result.stdout
    .split('\n')
    .filter((line) => line !== '')
    .sort();
}

const hasZsh = spawnSync('sh', ['-c', 'command -v zsh'], { stdio: 'ignore' }).status === 0;

describe('completionScript: bash', () => {
  const script = completionScript(sampleProgram(), 'bash');
  const complete = (...words: string[]) => completeBash(script, words);

  it('is valid bash and registers _atoll_completion for atoll', () => {
    const result = spawnSync('bash', ['-c', `${script}\ncomplete -p atoll`], { encoding: 'utf8' });
    assert.equal(result.stderr, '');
    assert.equal(result.stdout.trim(), 'complete -F _atoll_completion atoll');
  });

  it('completes the top-level commands, leaving out hidden ones', () => {
    assert.deepEqual(complete('atoll', ''), ['admin', 'apps', 'deploy', 'help']);
    assert.deepEqual(complete('atoll', 'a'), ['admin', 'apps']);
    assert.deepEqual(complete('atoll', 'int'), []);
  });

  it('completes nested subcommands, through aliases too', () => {
    assert.deepEqual(complete('atoll', 'apps', ''), ['create', 'get', 'help', 'list']);
    assert.deepEqual(complete('atoll', 'app', 'c'), ['create']);
    assert.deepEqual(complete('atoll', 'admin', ''), ['credentials', 'help']);
    assert.deepEqual(complete('atoll', 'admin', 'credentials', ''), ['help', 'list']);
    // `help` takes the name of a sibling command.
    assert.deepEqual(complete('atoll', 'help', ''), ['admin', 'apps', 'deploy']);
    assert.deepEqual(complete('atoll', 'apps', 'help', 'l'), ['list']);
  });

  it('completes the long options of the deepest command after `-`', () => {
    assert.deepEqual(complete('atoll', '-'), ['--help', '--profile', '--version']);
    assert.deepEqual(complete('atoll', 'apps', 'create', '-'), ['--file', '--help', '--region']);
    assert.deepEqual(complete('atoll', 'apps', 'create', '--r'), ['--region']);
    assert.deepEqual(complete('atoll', 'admin', 'credentials', 'list', '--'), ['--help', '--json']);
  });

  it('skips option values, including those of a parent command, when finding the command', () => {
    assert.deepEqual(complete('atoll', '--profile', 'apps', ''), ['admin', 'apps', 'deploy', 'help']);
    assert.deepEqual(complete('atoll', '--profile', 'prod', 'apps', ''), ['create', 'get', 'help', 'list']);
    assert.deepEqual(complete('atoll', 'apps', '--profile', 'prod', 'create', '--f'), ['--file']);
    assert.deepEqual(complete('atoll', 'apps', 'create', '--profile', 'prod', '--region', 'US'), ['US-C']);
  });

  it('completes the choices of an option after it, in every form bash may split it into', () => {
    assert.deepEqual(complete('atoll', 'apps', 'create', '--region', ''), ['UK', 'US-C']);
    assert.deepEqual(complete('atoll', 'apps', 'create', '--region', 'US'), ['US-C']);
    // `--region=<TAB>` and `--region=U<TAB>` with `=` in COMP_WORDBREAKS (the default).
    assert.deepEqual(complete('atoll', 'apps', 'create', '--region', '='), ['UK', 'US-C']);
    assert.deepEqual(complete('atoll', 'apps', 'create', '--region', '=', 'U'), ['UK', 'US-C']);
    // The same without `=` in COMP_WORDBREAKS: one word, completed whole.
    assert.deepEqual(complete('atoll', 'apps', 'create', '--region=U'), ['--region=UK', '--region=US-C']);
  });

  it('stops offering subcommands after an argument or an unknown word, and options after `--`', () => {
    assert.deepEqual(complete('atoll', 'bogus', ''), []);
    assert.deepEqual(complete('atoll', 'apps', 'bogus', 'l'), []);
    assert.deepEqual(complete('atoll', 'deploy', '--', '--'), []);
  });

  describe('file names', () => {
    let dir: string;
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'atoll-completion-'));
      writeFileSync(join(dir, 'wpe.json'), '{}');
      writeFileSync(join(dir, 'notes.txt'), '');
      mkdirSync(join(dir, 'site'));
    });
    after(() => {
      rmSync(dir, { recursive: true, force: true });
    });
    const inDir = (...words: string[]) => completeBash(script, words, dir);

    it('completes the arguments of a command as file names', () => {
      assert.deepEqual(inDir('atoll', 'deploy', ''), ['notes.txt', 'site', 'wpe.json']);
      assert.deepEqual(inDir('atoll', 'deploy', '--app', 'web', 's'), ['site']);
      assert.deepEqual(inDir('atoll', 'apps', 'get', 'n'), ['notes.txt']);
    });

    it('completes the value of an option without choices as file names', () => {
      assert.deepEqual(inDir('atoll', 'apps', 'create', '-f', 'w'), ['wpe.json']);
      assert.deepEqual(inDir('atoll', 'apps', 'create', '--file', '=', 'w'), ['wpe.json']);
      assert.deepEqual(inDir('atoll', 'apps', 'create', '--file=w'), ['--file=wpe.json']);
    });

    it('offers no file names to a command that takes no arguments', () => {
      assert.deepEqual(inDir('atoll', 'apps', 'list', ''), []);
      assert.deepEqual(inDir('atoll', 'apps', ''), ['create', 'get', 'help', 'list']);
    });
  });

  it('quotes names so that the shell never expands them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'atoll-completion-'));
    try {
      const program = new Command('atoll');
      program
        .command('tone')
        .addOption(new Option('--mood <mood>').choices(["it's", 'a b', '$(touch pwned)', '*']));
      const quoted = completionScript(program, 'bash');
      // Replies are escaped, as readline inserts them as they are.
      assert.deepEqual(completeBash(quoted, ['atoll', 'tone', '--mood', ''], dir), [
        '\\$\\(touch\\ pwned\\)',
        '\\*',
        'a\\ b',
        "it\\'s",
      ]);
      assert.ok(!existsSync(join(dir, 'pwned')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('completes the real admin commands, choices included', () => {
    const program = new Command('atoll');
    program.addCommand(
      createAdminCommand(
        () => '/nonexistent.sock',
        { out: () => undefined, err: () => undefined },
        () => undefined,
      ),
    );
    const adminScript = completionScript(program, 'bash');
    assert.deepEqual(completeBash(adminScript, ['atoll', 'admin', 'credentials', 'l']), ['list']);
    assert.deepEqual(completeBash(adminScript, ['atoll', 'admin', 'members', 'add', '--role', '']), [
      'developer',
      'owner',
      'viewer',
    ]);
  });
});

describe('completionScript: zsh', () => {
  const script = completionScript(sampleProgram(), 'zsh');

  it('is a #compdef atoll function that registers itself when sourced', () => {
    assert.ok(script.startsWith('#compdef atoll\n'));
    assert.match(script, /^_atoll\(\) \{$/m);
    assert.match(script, /^ {2}compdef _atoll atoll$/m);
  });

  it('names every visible command, option and choice, and no hidden one', () => {
    for (const word of ['apps', 'app', 'list', 'get', 'create', 'deploy', 'admin', 'credentials', 'help']) {
      assert.match(script, new RegExp(`\\d+:${word}\\b`), word);
    }
    for (const word of [
      '--region',
      '--file',
      '-f',
      '--app',
      '--json',
      '--profile',
      '--version',
      'US-C',
      'UK',
    ]) {
      assert.ok(script.includes(word), word);
    }
    assert.ok(!script.includes('internal-sync'));
    assert.ok(!script.includes('--secret-flag'));
  });

  it('is valid zsh', { skip: !hasZsh && 'zsh is not installed' }, () => {
    const result = spawnSync('zsh', ['-n'], { input: script, encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
  });
});

describe('completionScript', () => {
  it('gives the same text for the same tree', () => {
    for (const shell of ['bash', 'zsh'] as const) {
      assert.equal(completionScript(sampleProgram(), shell), completionScript(sampleProgram(), shell));
    }
  });
});
