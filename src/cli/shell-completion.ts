/**
 * Static shell completion scripts generated from the commander tree (`atoll completion bash|zsh`).
 *
 * The tree is compiled into shell `case` tables keyed by a numeric command id, so the script needs no
 * call back into `atoll` (fast, works offline) and completes exactly what the parser accepts. The
 * tables and the word-walking logic are written in the subset of syntax that bash and zsh share; only
 * the entry functions differ (COMP_WORDS/COMPREPLY vs words/compadd).
 */
import type { Command, Option } from 'commander';

/** One command as the completion scripts see it. */
interface CompletionNode {
  readonly id: number;
  /** Full command path, e.g. `atoll apps create`: only a comment in the script. */
  readonly label: string;
  /** Words that descend into a subcommand (its name and aliases) and the node they lead to. */
  readonly children: { readonly names: readonly string[]; readonly id: number }[];
  /** Words offered where a subcommand may come. */
  readonly subcommands: readonly string[];
  /** Flags offered after `-`: one per visible option, the long form when there is one. */
  readonly flags: readonly string[];
  /** Flags (own and inherited, hidden ones too) whose next word is their value. */
  readonly valueFlags: readonly string[];
  /** Allowed values of value options that declare `.choices()`, by the flags that take them. */
  readonly choices: readonly { readonly flags: readonly string[]; readonly values: readonly string[] }[];
  /** Whether the command takes arguments: those are completed as file names. */
  readonly takesArguments: boolean;
}

/** Generates the completion script of `program` for `shell`; same tree, same text. */
export function completionScript(program: Command, shell: 'bash' | 'zsh'): string {
  const nodes = collectNodes(program);
  const name = program.name();
  // Function names allow fewer characters than command names do.
  const fn = `_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const shared = sharedFunctions(fn, nodes);
  return shell === 'bash' ? bashScript(name, fn, shared) : zshScript(name, fn, shared);
}

function takesValue(option: Option): boolean {
  return option.required || option.optional;
}

function flagsOf(option: Option): string[] {
  return [option.long, option.short].filter((flag): flag is string => flag !== undefined);
}

/** Numbers the visible commands depth-first (the program is 0); hidden ones and their subtrees are left out. */
function collectNodes(program: Command): CompletionNode[] {
  const nodes: CompletionNode[] = [];

  const visit = (command: Command, label: string, inherited: readonly Option[]): number => {
    const help = command.createHelp();
    const visible = help.visibleCommands(command);
    // Own options come first so that they win over an ancestor's option with the same flag.
    const valueOptions = [...command.options.filter(takesValue), ...inherited];
    const node = {
      id: nodes.length,
      label,
      children: [] as { names: string[]; id: number }[],
      subcommands: visible.map((sub) => sub.name()),
      flags: help.visibleOptions(command).flatMap((option) => option.long ?? option.short ?? []),
      valueFlags: unique(valueOptions.flatMap(flagsOf)),
      choices: choicesOf(valueOptions),
      takesArguments: command.registeredArguments.length > 0,
    };
    nodes.push(node);
    for (const sub of visible) {
      // The implicit `help` command is not in `command.commands`; its argument is a sibling command.
      const id = command.commands.includes(sub)
        ? visit(sub, `${label} ${sub.name()}`, valueOptions)
        : addHelpNode(nodes, `${label} ${sub.name()}`, node.subcommands, sub.name());
      node.children.push({ names: unique([sub.name(), ...sub.aliases()]), id });
    }
    return node.id;
  };

  visit(program, program.name(), []);
  return nodes;
}

function addHelpNode(
  nodes: CompletionNode[],
  label: string,
  siblings: readonly string[],
  helpName: string,
): number {
  const id = nodes.length;
  nodes.push({
    id,
    label,
    children: [],
    subcommands: siblings.filter((sibling) => sibling !== helpName),
    flags: [],
    valueFlags: [],
    choices: [],
    takesArguments: false,
  });
  return id;
}

/** Choices by flag; a flag already claimed by a nearer option keeps that option's choices. */
function choicesOf(valueOptions: readonly Option[]): CompletionNode['choices'] {
  const claimed = new Set<string>();
  const result: { flags: string[]; values: string[] }[] = [];
  for (const option of valueOptions) {
    const flags = flagsOf(option).filter((flag) => !claimed.has(flag));
    flags.forEach((flag) => claimed.add(flag));
    if (flags.length > 0 && option.argChoices !== undefined && option.argChoices.length > 0) {
      result.push({ flags, values: [...option.argChoices] });
    }
  }
  return result;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/**
 * A word the shell reads back as exactly `value`: bare when it has only characters that no shell
 * expands (note: no `=`, `~`, glob characters), single-quoted otherwise. The same quoting is valid
 * in bash and zsh, in `case` patterns and in array assignments alike.
 */
function shellWord(value: string): string {
  return /^[A-Za-z0-9_.,:@%+/-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

function shellArray(values: readonly string[]): string {
  return `(${values.map(shellWord).join(' ')})`;
}

/** A `case "$1:$2"` pattern matching command `id` followed by any of `words`. */
function idPattern(id: number, words: readonly string[]): string {
  return words.map((word) => `${id}:${shellWord(word)}`).join('|');
}

/**
 * The command tables and the walker, valid in both bash and zsh. They talk to their caller through
 * variables it declares `local` (both shells scope dynamically), so nothing leaks into the user's shell.
 */
function sharedFunctions(fn: string, nodes: readonly CompletionNode[]): string {
  const p = `${fn}_completion`;
  const lines: string[] = [];

  lines.push(
    `# Succeeds when word $2 names a subcommand of command $1, setting ${fn}_node to it.`,
    `${p}_child() {`,
    `  case "$1:$2" in`,
  );
  for (const node of nodes) {
    for (const child of node.children) {
      lines.push(`    ${idPattern(node.id, child.names)}) ${fn}_node=${child.id} ;;`);
    }
  }
  lines.push(`    *) return 1 ;;`, `  esac`, `}`, ``);

  lines.push(
    `# Succeeds when word $2 is an option of command $1 (or of its parents) that takes a value.`,
    `${p}_takes_value() {`,
    `  case "$1:$2" in`,
  );
  for (const node of nodes) {
    if (node.valueFlags.length > 0) lines.push(`    ${idPattern(node.id, node.valueFlags)}) return 0 ;;`);
  }
  lines.push(`  esac`, `  return 1`, `}`, ``);

  lines.push(
    `# Sets ${fn}_words to the allowed values of option $2 of command $1 (empty: any value).`,
    `${p}_choices() {`,
    `  case "$1:$2" in`,
  );
  for (const node of nodes) {
    for (const choice of node.choices) {
      lines.push(`    ${idPattern(node.id, choice.flags)}) ${fn}_words=${shellArray(choice.values)} ;;`);
    }
  }
  lines.push(`    *) ${fn}_words=() ;;`, `  esac`, `}`, ``);

  lines.push(
    `# Sets ${fn}_words to the subcommands of command $1, ${fn}_options to its options, and`,
    `# ${fn}_files to 1 when it takes arguments (completed as file names).`,
    `${p}_node() {`,
    `  case "$1" in`,
  );
  for (const node of nodes) {
    lines.push(
      `    ${node.id}) # ${node.label.replace(/[\r\n]/g, ' ')}`,
      `      ${fn}_words=${shellArray(node.subcommands)}`,
      `      ${fn}_options=${shellArray(node.flags)}`,
      `      ${fn}_files=${node.takesArguments ? 1 : 0} ;;`,
    );
  }
  lines.push(`  esac`, `}`, ``);

  lines.push(
    `# Walks the words before the cursor ("$@"), setting ${fn}_node to the deepest command reached,`,
    `# ${fn}_expect to the option whose value comes next (or empty), ${fn}_operand to 1 once an`,
    `# argument was seen (commander only looks for a subcommand in the first one) and`,
    `# ${fn}_dashdash to 1 after \`--\` (everything after it is an argument).`,
    `${p}_walk() {`,
    `  local word`,
    `  ${fn}_node=0 ${fn}_expect= ${fn}_operand=0 ${fn}_dashdash=0`,
    `  for word in "$@"; do`,
    `    if [[ -n $${fn}_expect ]]; then`,
    `      # bash splits \`--opt=value\` at \`=\` (COMP_WORDBREAKS): after a lone \`=\` the value is still to come.`,
    `      [[ $word == '=' ]] || ${fn}_expect=`,
    `      continue`,
    `    fi`,
    `    if (( ${fn}_dashdash == 0 )); then`,
    `      # Only an exact flag takes the next word: \`--opt=value\` and \`-xVALUE\` carry their own.`,
    `      case $word in`,
    `        --) ${fn}_dashdash=1; continue ;;`,
    `        -?*) ${p}_takes_value "$${fn}_node" "$word" && ${fn}_expect=$word; continue ;;`,
    `        '=') continue ;;`,
    `      esac`,
    `    fi`,
    `    if (( ${fn}_operand == 0 )) && ${p}_child "$${fn}_node" "$word"; then continue; fi`,
    `    ${fn}_operand=1`,
    `  done`,
    `  return 0`,
    `}`,
  );
  return lines.join('\n');
}

function bashScript(name: string, fn: string, shared: string): string {
  const p = `${fn}_completion`;
  const v = (suffix: string) => `${fn}_${suffix}`;
  return `# bash completion for ${name}, generated from its commands: regenerate rather than edit.
# Load it with: source <(${name} completion bash)

${shared}

# Adds the file names starting with $2 to COMPREPLY, each prefixed with $1.
${p}_files() {
  local name
  # Lets readline quote special characters and mark directories; fails when called outside completion.
  [[ -n $1 ]] || compopt -o filenames 2>/dev/null
  while IFS= read -r name; do COMPREPLY+=("$1$name"); done < <(compgen -f -- "$2")
  return 0
}

${p}() {
  local ${v('node')} ${v('expect')} ${v('operand')} ${v('dashdash')} ${v('files')} word prefix=
  local -a ${v('words')}=() ${v('options')}=()
  local cur=\${COMP_WORDS[COMP_CWORD]-}
  COMPREPLY=()
  ${p}_walk "\${COMP_WORDS[@]:1:COMP_CWORD-1}"

  # \`--opt=<TAB>\`: with \`=\` in COMP_WORDBREAKS the current word is the \`=\` itself.
  if [[ -n $${v('expect')} && $cur == '=' ]]; then cur=; fi
  # \`--opt=val\` as one word (COMP_WORDBREAKS without \`=\`): complete what follows the \`=\`.
  if [[ -z $${v('expect')} && $${v('dashdash')} == 0 && $cur == --*=* ]] &&
    ${p}_takes_value "$${v('node')}" "\${cur%%=*}"; then
    ${v('expect')}=\${cur%%=*}
    prefix=\${cur%%=*}=
    cur=\${cur#*=}
  fi

  if [[ -n $${v('expect')} ]]; then
    ${p}_choices "$${v('node')}" "$${v('expect')}"
    if (( \${#${v('words')}[@]} == 0 )); then
      ${p}_files "$prefix" "$cur"
      return 0
    fi
    for word in "\${${v('words')}[@]}"; do
      # Escaped, as readline inserts replies literally and a value may hold spaces.
      [[ $word == "$cur"* ]] && printf -v word '%q' "$word" && COMPREPLY+=("$prefix$word")
    done
    return 0
  fi

  ${p}_node "$${v('node')}"
  if [[ $cur == -* && $${v('dashdash')} == 0 ]]; then
    for word in "\${${v('options')}[@]}"; do
      [[ $word == "$cur"* ]] && COMPREPLY+=("$word")
    done
    return 0
  fi
  if (( ${v('operand')} == 0 )); then
    for word in "\${${v('words')}[@]}"; do
      [[ $word == "$cur"* ]] && COMPREPLY+=("$word")
    done
  fi
  if (( ${v('files')} == 1 )); then ${p}_files '' "$cur"; fi
  return 0
}

complete -F ${p} ${shellWord(name)}
`;
}

function zshScript(name: string, fn: string, shared: string): string {
  const p = `${fn}_completion`;
  const v = (suffix: string) => `${fn}_${suffix}`;
  return `#compdef ${name}
# zsh completion for ${name}, generated from its commands: regenerate rather than edit.
# Load it with: source <(${name} completion zsh) after compinit, or save it as ${fn} in a directory of $fpath.

${shared}

${fn}() {
  local ${v('node')} ${v('expect')} ${v('operand')} ${v('dashdash')} ${v('files')} ret=1
  local -a ${v('words')} ${v('options')}
  local cur=\${words[CURRENT]}
  ${p}_walk "\${(@)words[2,CURRENT-1]}"

  # zsh keeps \`--opt=val\` as one word: complete what follows the \`=\`.
  if [[ -z $${v('expect')} && $${v('dashdash')} == 0 && $cur == --*=* ]] &&
    ${p}_takes_value "$${v('node')}" "\${cur%%=*}"; then
    ${v('expect')}=\${cur%%=*}
    compset -P '*='
  fi

  if [[ -n $${v('expect')} ]]; then
    ${p}_choices "$${v('node')}" "$${v('expect')}"
    if (( \${#${v('words')}} )); then
      compadd -a ${v('words')}
    else
      _files
    fi
    return
  fi

  ${p}_node "$${v('node')}"
  if [[ $cur == -* && $${v('dashdash')} == 0 ]]; then
    compadd -a ${v('options')}
    return
  fi
  if (( ${v('operand')} == 0 && \${#${v('words')}} )); then compadd -a ${v('words')} && ret=0; fi
  if (( ${v('files')} == 1 )); then _files && ret=0; fi
  return $ret
}

# Autoloaded from $fpath this file is the body of ${fn}: define it (above), then complete.
# Sourced, it registers ${fn} instead, which needs compinit's compdef.
if [[ \${funcstack[1]-} == ${fn} ]]; then
  ${fn} "$@"
elif (( \${+functions[compdef]} )); then
  compdef ${fn} ${shellWord(name)}
else
  print -u2 -- ${shellWord(`${name} completion: run "autoload -U compinit && compinit" before loading it`)}
fi
`;
}
