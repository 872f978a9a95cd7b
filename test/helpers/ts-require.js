/**
 * A CommonJS `.ts` loader for the tests' child processes (`node --require test/helpers/ts-require.js x.ts`):
 * each file is compiled by esbuild the way tsx compiles it (CommonJS, inline source map, names kept) and the
 * result kept on disk under the hash of its source, so a file is compiled once per change, not once per process.
 *
 * tsx does the same work behind Node's module hooks, which costs a child process about 0.7 CPU-s more to load the
 * worker's and the API's modules (1.5 CPU-s through `--import tsx`, 0.8 through this hook); the tests start about
 * fifty such processes. What runs is the same code from the same paths (`__dirname` included), with the same flags.
 */
// V8's code cache for the dependencies' CommonJS files, esbuild's included (./code-cache.js).
const { writeWhole } = require('./code-cache');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const CACHE_DIR = path.join(
  process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'),
  'gpu-orchestrator',
  'ts-require',
);
const OPTIONS = {
  loader: 'ts',
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: 'inline',
  keepNames: true,
};

let esbuild;
let version;
const esbuildVersion = () => (version ??= require('esbuild/package.json').version);

function compiled(filename, source) {
  const key = createHash('sha256')
    .update(`${esbuildVersion()}\0${JSON.stringify(OPTIONS)}\0${filename}\0`)
    .update(source)
    .digest('hex');
  const file = path.join(CACHE_DIR, `${key}.js`);
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    esbuild ??= require('esbuild');
    const { code } = esbuild.transformSync(source, { ...OPTIONS, sourcefile: filename });
    // Not cached when it cannot be written: this process still runs the compiled code.
    writeWhole(file, code);
    return code;
  }
}

process.setSourceMapsEnabled(true);
require.extensions['.ts'] = function loadTypeScript(module, filename) {
  module._compile(compiled(filename, fs.readFileSync(filename, 'utf8')), filename);
};
