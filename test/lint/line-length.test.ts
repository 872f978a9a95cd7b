/**
 * One formatter (prettier, print width 120) shapes the code; it does not break strings, SQL templates or
 * comments, so this check holds those to the same width. Generated files are left out.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const MAX_LINE = 120;
const GENERATED = new Set(['sdk/src/schema.ts']);

function trackedSources(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  });
  return out
    .split('\0')
    .filter((f) => /\.(ts|tsx|js|mjs|cjs)$/.test(f) && !GENERATED.has(f) && !f.startsWith('test/fixtures/'));
}

/** `file:line (length)` for every line over the width. */
export function longLines(files: string[], read: (file: string) => string): string[] {
  return files.flatMap((file) =>
    read(file)
      .split('\n')
      .flatMap((line, i) => (line.length > MAX_LINE ? [`${file}:${i + 1} (${line.length})`] : [])),
  );
}

it(`has no source line over ${MAX_LINE} characters outside generated files`, () => {
  const files = trackedSources();
  expect(files.length).toBeGreaterThan(100);
  expect(longLines(files, (f) => readFileSync(path.join(root, f), 'utf8'))).toEqual([]);
});

it('names the file and line of a long one', () => {
  const text: Record<string, string> = { 'a.ts': `short\n${'x'.repeat(MAX_LINE + 1)}\n` };
  expect(longLines(['a.ts'], (f) => text[f]!)).toEqual([`a.ts:2 (${MAX_LINE + 1})`]);
});
