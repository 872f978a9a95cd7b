/**
 * Builds the web console from `console/src` into `dist/web` with esbuild: one hashed JS bundle (Preact,
 * uPlot) and one CSS file, plus index.html pointing at them. Prints the gzipped sizes; fails when the
 * JavaScript passes its budget. `npm run console:build`; `npm start`, `npm test` and `npm run build` call it.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

export const CONSOLE_SOURCE = path.resolve(__dirname);
export const CONSOLE_OUT = path.resolve(__dirname, '..', 'dist', 'web');
/** The console's JavaScript budget, gzipped (issue: ≤ 250 KB). */
export const JS_BUDGET_BYTES = 250 * 1024;

export interface ConsoleBuild {
  outDir: string;
  files: { file: string; bytes: number; gzipBytes: number }[];
  jsGzipBytes: number;
}

export async function buildConsole(outDir = CONSOLE_OUT): Promise<ConsoleBuild> {
  await rm(outDir, { recursive: true, force: true });
  const assets = path.join(outDir, 'assets');
  await mkdir(assets, { recursive: true });
  const result = await build({
    absWorkingDir: path.resolve(CONSOLE_SOURCE, '..'),
    entryPoints: { app: path.join(CONSOLE_SOURCE, 'src', 'main.tsx') },
    entryNames: '[name]-[hash]',
    outdir: assets,
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: path.join(CONSOLE_SOURCE, 'tsconfig.json'),
    legalComments: 'none',
    metafile: true,
    logLevel: 'silent',
  });
  const outputs = Object.keys(result.metafile.outputs).map((f) => path.resolve(path.resolve(CONSOLE_SOURCE, '..'), f));
  const js = outputs.find((f) => f.endsWith('.js'));
  const css = outputs.find((f) => f.endsWith('.css'));
  if (!js || !css) throw new Error('console build produced no JS or CSS bundle');
  const html = (await readFile(path.join(CONSOLE_SOURCE, 'index.html'), 'utf8'))
    .replace('/console/assets/app.js', `/console/assets/${path.basename(js)}`)
    .replace('/console/assets/app.css', `/console/assets/${path.basename(css)}`);
  await writeFile(path.join(outDir, 'index.html'), html);
  const files = await Promise.all(
    [js, css, path.join(outDir, 'index.html')].map(async (file) => {
      const bytes = await readFile(file);
      return {
        file: path.relative(outDir, file),
        bytes: bytes.length,
        gzipBytes: gzipSync(bytes, { level: 9 }).length,
      };
    }),
  );
  const jsGzipBytes = files.filter((f) => f.file.endsWith('.js')).reduce((s, f) => s + f.gzipBytes, 0);
  if (jsGzipBytes > JS_BUDGET_BYTES)
    throw new Error(`console JavaScript is ${jsGzipBytes} bytes gzipped, over the ${JS_BUDGET_BYTES}-byte budget`);
  return { outDir, files, jsGzipBytes };
}

export function describeBuild(b: ConsoleBuild): string {
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  return [
    `console built into ${b.outDir}`,
    ...b.files.map((f) => `  ${f.file.padEnd(32)} ${kb(f.bytes).padStart(9)}  (${kb(f.gzipBytes)} gzipped)`),
    `  JavaScript: ${kb(b.jsGzipBytes)} gzipped of a ${kb(JS_BUDGET_BYTES)} budget`,
  ].join('\n');
}

if (require.main === module) {
  buildConsole().then(
    (b) => process.stdout.write(describeBuild(b) + '\n'),
    (err: Error) => {
      process.stderr.write(`console build failed: ${err.message}\n`);
      process.exit(1);
    },
  );
}
