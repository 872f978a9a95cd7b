/**
 * Shell completion scripts for bash and zsh, written from the command table: command words, then the
 * command's options, then an option's or an argument's fixed values (providers, output formats, statuses).
 * Both scripts find the command the same way: the leading words that name a known command or group.
 */
import { GLOBAL_OPTIONS, type CommandSpec, type OptionSpec } from './spec';

interface Node {
  /** Words that may follow (subcommands), with their summaries. */
  words: Map<string, string>;
  /** The command at this node, when these words name one. */
  spec?: CommandSpec;
}

/** Every prefix of every command's words (aliases too), keyed by the words joined with spaces. */
function tree(table: readonly CommandSpec[]): Map<string, Node> {
  const nodes = new Map<string, Node>([['', { words: new Map() }]]);
  for (const spec of table) {
    for (const path of [spec.path, ...(spec.aliases ?? [])]) {
      path.forEach((word, i) => {
        const parent = path.slice(0, i).join(' ');
        const key = path.slice(0, i + 1).join(' ');
        if (!nodes.get(parent)!.words.has(word))
          nodes.get(parent)!.words.set(word, i === path.length - 1 ? spec.summary : `${word} commands`);
        if (!nodes.has(key)) nodes.set(key, { words: new Map() });
        if (i === path.length - 1) nodes.get(key)!.spec = spec;
      });
    }
  }
  return nodes;
}

const options = (spec?: CommandSpec): [string, OptionSpec][] =>
  Object.entries({ ...(spec?.options ?? {}), ...GLOBAL_OPTIONS });
const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** A case pattern matching exactly these words (spaces escaped). */
const pattern = (key: string) => (key === '' ? "''" : key.replace(/ /g, '\\ '));

function bash(table: readonly CommandSpec[]): string {
  const nodes = tree(table);
  const known = [...nodes.keys()].filter(Boolean).map(pattern).join('|');
  const cases = [...nodes].map(([key, node]) => {
    const words = [...node.words.keys(), ...(node.spec || key === '' ? options(node.spec).map(([n]) => `--${n}`) : [])];
    const values = options(node.spec)
      .filter(([, o]) => o.choices)
      .map(
        ([n, o]) =>
          `        --${n}${o.short ? `|-${o.short}` : ''}) ` +
          `COMPREPLY=($(compgen -W ${sq(o.choices!.join(' '))} -- "$cur")); return;;`,
      );
    const arg = node.spec?.args?.find((a) => a.choices);
    return [
      `    ${pattern(key)})`,
      ...(values.length ? ['      case "$prev" in', ...values, '      esac'] : []),
      ...(arg && node.words.size === 0
        ? [
            `      [[ $cur != -* && $npos -eq 0 ]] && ` +
              `{ COMPREPLY=($(compgen -W ${sq(arg.choices!.join(' '))} -- "$cur")); return; }`,
          ]
        : []),
      `      COMPREPLY=($(compgen -W ${sq(words.join(' '))} -- "$cur"));;`,
    ].join('\n');
  });
  return `# gpuo completion for bash: source <(gpuo completion bash), or save it as
# ~/.local/share/bash-completion/completions/gpuo
_gpuo() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" key="" npos=0 w i
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    [[ $w == -* ]] && continue
    case "\${key:+$key }$w" in
      ${known}) key="\${key:+$key }$w" ;;
      *) npos=$((npos + 1)) ;;
    esac
  done
  case "$key" in
${cases.join('\n')}
  esac
}
complete -F _gpuo gpuo
`;
}

function zsh(table: readonly CommandSpec[]): string {
  const nodes = tree(table);
  const known = [...nodes.keys()].filter(Boolean).map(pattern).join('|');
  const describe = (name: string, description: string) => sq(`${name.replace(/:/g, '\\:')}:${description}`);
  const cases = [...nodes].map(([key, node]) => {
    const items = [
      ...[...node.words].map(([w, d]) => describe(w, d)),
      ...(node.spec || key === '' ? options(node.spec).map(([n, o]) => describe(`--${n}`, o.description)) : []),
    ];
    const values = options(node.spec)
      .filter(([, o]) => o.choices)
      .map(([n, o]) => `        (--${n}${o.short ? `|-${o.short}` : ''}) compadd -- ${o.choices!.join(' ')}; return;;`);
    const arg = node.spec?.args?.find((a) => a.choices);
    return [
      `    (${pattern(key)})`,
      ...(values.length ? ['      case $prev in', ...values, '      esac'] : []),
      ...(arg && node.words.size === 0
        ? [`      [[ $cur != -* && $npos -eq 0 ]] && { compadd -- ${arg.choices!.join(' ')}; return; }`]
        : []),
      `      items=(${items.join(' ')});;`,
    ].join('\n');
  });
  return `#compdef gpuo
# gpuo completion for zsh: source <(gpuo completion zsh) after compinit, or save it as _gpuo in a folder of $fpath
_gpuo() {
  local cur=\${words[CURRENT]} prev=\${words[CURRENT-1]} key="" npos=0 w i
  local -a items
  for ((i = 2; i < CURRENT; i++)); do
    w=\${words[i]}
    [[ $w == -* ]] && continue
    case "\${key:+$key }$w" in
      (${known}) key="\${key:+$key }$w" ;;
      (*) npos=$((npos + 1)) ;;
    esac
  done
  case $key in
${cases.join('\n')}
  esac
  _describe -t commands gpuo items
}
if [[ $funcstack[1] == _gpuo ]]; then _gpuo "$@"; else compdef _gpuo gpuo; fi
`;
}

export function completionScript(shell: 'bash' | 'zsh', table: readonly CommandSpec[]): string {
  return shell === 'bash' ? bash(table) : zsh(table);
}
