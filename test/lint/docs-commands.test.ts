import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Every command in README.md and docs/*.md still runs as written: each `npm run X` names a script of
 * package.json, each file a command runs (`npx jest <file>`, `node <file>`, `node --import tsx <file>`) exists,
 * and so does each repository file named in backticks and each relative Markdown link.
 */
const root = path.resolve(__dirname, '../..');

interface Doc {
  file: string;
  text: string;
}

function docs(): Doc[] {
  const docsDir = path.join(root, 'docs');
  const files = [
    'README.md',
    ...readdirSync(docsDir)
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  return files.map((file) => ({ file, text: readFileSync(path.join(root, file), 'utf8') }));
}

/** Lines of fenced code blocks marked sh/bash/shell/console (the blocks a reader pastes into a shell). */
function shellLines(markdown: string): string[] {
  const lines: string[] = [];
  let inShell = false;
  let inFence = false;
  for (const line of markdown.split('\n')) {
    const fence = /^\s*```\s*([A-Za-z]*)/.exec(line);
    if (fence) {
      if (inFence) {
        inFence = false;
        inShell = false;
      } else {
        inFence = true;
        inShell = ['sh', 'bash', 'shell', 'console'].includes(fence[1] ?? '');
      }
      continue;
    }
    if (inShell) {
      const command = line
        .replace(/(^|\s)#.*$/, '')
        .replace(/^\s*\$\s*/, '')
        .trim();
      if (command) lines.push(command);
    }
  }
  return lines;
}

/** Inline code spans outside fenced blocks. */
function inlineCode(markdown: string): string[] {
  const withoutFences = markdown.replace(/^[ \t]*```[\s\S]*?^[ \t]*```/gm, '');
  return [...withoutFences.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
}

/** The commands of a shell line (split on `&&`, `;`, `|`, `&`), without leading VAR=value assignments. */
function commands(line: string): string[][] {
  return line
    .split(/&&|\|\||;|\||&(?!\S)/)
    .map((part) => part.trim().split(/\s+/).filter(Boolean))
    .map((words) => {
      let i = 0;
      while (i < words.length && /^[A-Z_][A-Z0-9_]*=/.test(words[i]!)) i += 1;
      return words.slice(i);
    })
    .filter((words) => words.length > 0);
}

interface Problem {
  file: string;
  what: string;
}

function checkCommand(file: string, words: string[], scripts: Record<string, string>, problems: Problem[]): void {
  const [program, ...args] = words;
  const isPath = (w: string): boolean => /^[\w.][\w./-]*\.(ts|js|mjs|cjs)$/.test(w) && !w.startsWith('dist/');
  if (program === 'npm') {
    const sub = args[0];
    if ((sub === 'run' || sub === 'run-script') && args[1] && !/^-|[*<]/.test(args[1])) {
      if (!(args[1] in scripts)) problems.push({ file, what: `npm run ${args[1]}: no such script in package.json` });
    } else if ((sub === 'test' || sub === 'start') && !(sub in scripts)) {
      problems.push({ file, what: `npm ${sub}: no such script in package.json` });
    }
  } else if (program === 'npx' && args[0] === 'jest') {
    for (const arg of args.slice(1).filter((a) => !a.startsWith('-') && !a.includes('<'))) {
      if (!existsSync(path.join(root, arg))) problems.push({ file, what: `npx jest ${arg}: no such file` });
    }
  } else if (program === 'node') {
    const target = args.find((a, i) => !a.startsWith('-') && args[i - 1] !== '--import' && args[i - 1] !== '-e');
    if (target && isPath(target) && !existsSync(path.join(root, target))) {
      problems.push({ file, what: `node ${target}: no such file` });
    }
  }
}

const REPO_PATH = /^(src|activities|workflows|simulators|bench|test|scripts|docs|\.ci)\/[\w./-]*$/;

function checkPathMention(file: string, span: string, problems: Problem[]): void {
  for (const word of span.split(/[\s,()]+/)) {
    const candidate = word.replace(/[:.]+$/, '');
    if (!REPO_PATH.test(candidate)) continue;
    if (!existsSync(path.join(root, candidate)))
      problems.push({ file, what: `\`${candidate}\`: no such file or folder` });
  }
}

function checkLinks(file: string, markdown: string, problems: Problem[]): void {
  for (const match of markdown.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = match[1]!.split('#')[0];
    if (!target || /^[a-z]+:/i.test(target)) continue;
    const resolved = path.relative(root, path.resolve(path.dirname(path.join(root, file)), target));
    if (!existsSync(path.join(root, resolved))) problems.push({ file, what: `link ${match[1]}: no such file` });
  }
}

describe('README and docs/', () => {
  const scripts = (
    JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  ).scripts;

  it('finds the commands it checks (the extraction itself works)', () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const lines = shellLines(readme);
    expect(lines).toContain('npm test');
    expect(commands('FUZZ_SEED=1 FUZZ_RUNS=200 npx jest test/api/fuzz.test.ts')).toEqual([
      ['npx', 'jest', 'test/api/fuzz.test.ts'],
    ]);
    const problems: Problem[] = [];
    checkCommand('probe', ['npm', 'run', 'no-such-script'], scripts, problems);
    checkCommand('probe', ['npx', 'jest', 'test/no/such.test.ts'], scripts, problems);
    checkCommand('probe', ['node', '--import', 'tsx', 'bench/no-such.ts'], scripts, problems);
    checkPathMention('probe', 'see src/no-such-module.ts', problems);
    checkLinks('README.md', '[x](docs/no-such-doc.md)', problems);
    expect(problems.map((p) => p.what)).toEqual([
      'npm run no-such-script: no such script in package.json',
      'npx jest test/no/such.test.ts: no such file',
      'node bench/no-such.ts: no such file',
      '`src/no-such-module.ts`: no such file or folder',
      'link docs/no-such-doc.md: no such file',
    ]);
  });

  it('runs every command as written: scripts, files and links exist', () => {
    const problems: Problem[] = [];
    for (const { file, text } of docs()) {
      for (const line of shellLines(text))
        for (const words of commands(line)) checkCommand(file, words, scripts, problems);
      for (const span of inlineCode(text)) {
        for (const words of commands(span)) checkCommand(file, words, scripts, problems);
        checkPathMention(file, span, problems);
      }
      checkLinks(file, text, problems);
    }
    expect(problems.map((p) => `${p.file}: ${p.what}`)).toEqual([]);
  });
});
