/**
 * What commands print through and ask with: results on standard output, everything else on standard error,
 * colours and prompts.
 */
import { styleText } from 'node:util';

export type Style = 'bold' | 'dim' | 'green' | 'red' | 'yellow' | 'cyan';

/**
 * What the user commands print through and ask with. Standard output carries results (and build
 * logs); standard error carries progress, prompts, hints and errors, so `--json` output stays clean.
 */
export interface Terminal {
  /** One line of result on standard output. */
  out(text: string): void;
  /** Text as it comes (a streamed log) on standard output. */
  write(text: string): void;
  /** One line of progress or error on standard error. */
  err(text: string): void;
  /** Text as it is on standard error (a progress bar redrawing its line). */
  errRaw(text: string): void;
  /** Colours the text for standard output when colours are on. */
  paint(style: Style, text: string): string;
  /** Colours the text for standard error when colours are on. */
  paintErr(style: Style, text: string): string;
  /** A person can answer questions: standard input and error are terminals and `--yes` was not given. */
  readonly interactive: boolean;
  /** Standard error is a terminal: a progress bar may redraw its line. */
  readonly liveProgress: boolean;
  ask(message: string, options?: { secret?: boolean; default?: string }): Promise<string>;
  confirm(message: string, defaultAnswer: boolean): Promise<boolean>;
}

interface Stream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

/**
 * The prompts' library, loaded when a command first asks something: loading it takes about a tenth of a second,
 * which every command (atoll serve among them) paid at its start though most never ask anything.
 */
function prompts(): Promise<typeof import('@inquirer/prompts')> {
  return import('@inquirer/prompts');
}

/** Colours are on for a terminal, unless NO_COLOR is set (https://no-color.org) or TERM is dumb. */
export function coloursWanted(stream: Stream, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return stream.isTTY === true;
}

export function createTerminal(options: {
  stdout: Stream;
  stderr: Stream;
  stdinIsTty: boolean;
  env: NodeJS.ProcessEnv;
  yes: boolean;
}): Terminal {
  const { stdout, stderr, env } = options;
  const outColours = coloursWanted(stdout, env);
  const errColours = coloursWanted(stderr, env);
  // Prompts draw on standard error, so that standard output holds only the result.
  const context = { output: stderr as NodeJS.WritableStream, clearPromptOnDone: false };
  return {
    out: (text) => stdout.write(`${text}\n`),
    write: (text) => stdout.write(text),
    err: (text) => stderr.write(`${text}\n`),
    errRaw: (text) => stderr.write(text),
    paint: (style, text) => (outColours ? styleText(style, text) : text),
    paintErr: (style, text) => (errColours ? styleText(style, text) : text),
    interactive: options.stdinIsTty && stderr.isTTY === true && !options.yes,
    liveProgress: stderr.isTTY === true,
    ask: async (message, askOptions = {}) => {
      const { input, password } = await prompts();
      return askOptions.secret === true
        ? password({ message, mask: '*' }, context)
        : input(
            { message, ...(askOptions.default !== undefined && { default: askOptions.default }) },
            context,
          );
    },
    confirm: async (message, defaultAnswer) => {
      const { confirm } = await prompts();
      return confirm({ message, default: defaultAnswer }, context);
    },
  };
}

/** `1.5 MB`: sizes as people read them (powers of 1,000, like the other tools' upload bars). */
export function formatBytes(bytes: number): string {
  if (bytes < 1_000) return `${String(bytes)} B`;
  const units = ['kB', 'MB', 'GB'];
  let value = bytes / 1_000;
  let unit = 0;
  while (value >= 1_000 && unit < units.length - 1) {
    value /= 1_000;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit] ?? 'GB'}`;
}

/**
 * An upload's progress on standard error: a bar redrawn in place on a terminal, at most ten times a
 * second; elsewhere (CI logs) a line at the start and one at the end.
 */
export class ProgressBar {
  #lastDraw = 0;
  readonly #started: number;
  #drawn = false;

  constructor(
    private readonly terminal: Terminal,
    private readonly label: string,
    private readonly total: number,
    private readonly now: () => number = Date.now,
  ) {
    this.#started = now();
    if (!terminal.liveProgress) terminal.err(`${label} ${formatBytes(total)}…`);
  }

  update(sent: number): void {
    if (!this.terminal.liveProgress) return;
    const now = this.now();
    if (now - this.#lastDraw < 100 && sent < this.total) return;
    this.#lastDraw = now;
    const ratio = this.total === 0 ? 1 : Math.min(1, sent / this.total);
    const width = 30;
    const filled = Math.round(ratio * width);
    const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
    const percent = `${String(Math.floor(ratio * 100)).padStart(3)}%`;
    this.terminal.errRaw(
      `\r${this.label} ${bar} ${percent} ${formatBytes(Math.min(sent, this.total))} / ${formatBytes(this.total)}`,
    );
    this.#drawn = true;
  }

  done(): void {
    const seconds = ((this.now() - this.#started) / 1000).toFixed(1);
    if (this.#drawn) this.terminal.errRaw('\n');
    this.terminal.err(`${this.label} ${formatBytes(this.total)} done in ${seconds} s`);
  }
}

/** Lines of a table whose columns are padded to their widest cell (the last column is not padded). */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, column) => Math.max(h.length, ...rows.map((r) => (r[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

/** Everything on standard input (a secret passed with --password-stdin or --token-stdin). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
