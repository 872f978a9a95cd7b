/**
 * V8's code cache for the dependencies (CommonJS `.js` and `.cjs` files under node_modules) of the tests' child
 * processes, loaded by test/helpers/ts-require.js: Node parses and compiles @temporalio, slonik, koa and the rest
 * anew in each process otherwise (about 0.15 of the 0.65 CPU-s the worker's modules take to load). Jest's own
 * processes do not load it: as their preload it measured without a gain (docs/testing.md).
 *
 * One file per version of a dependency's file under `~/.cache/gpu-orchestrator/v8-code-cache/<node>-<arch>/`
 * (the folder may be deleted at any time; one that cannot be written only leaves things uncached), made after the
 * module's body ran, so it holds the functions that ran at load too; data V8 rejects is made again. Our own
 * sources keep Node's compilation (their inline source maps are registered there, which stack traces need); so do
 * ES modules, files that may `import()`, and anything this cannot compile, which Node then compiles and reports as
 * it would have. Line and column numbers in stack traces are the file's own.
 */
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const Module = require('node:module');
const os = require('node:os');
const path = require('node:path');
const vm = require('node:vm');

const INSTALLED = Symbol.for('gpuo.test.codeCache');
const CODE_CACHE_DIR = path.join(
  process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'),
  'gpu-orchestrator',
  'v8-code-cache',
  `${process.version}-${process.arch}`,
);
const WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname) {';
const WRAPPER_TAIL = '})';
const NODE_MODULES = `${path.sep}node_modules${path.sep}`;

function read(file) {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Writes `data` to `file` whole or not at all: written aside and renamed, so processes writing the same file at
 * once each leave a whole one. A file that cannot be written (no folder, no space, no permission) is left out:
 * the caller goes on without it. Also ts-require.js's writer of compiled sources.
 */
function writeWhole(file, data) {
  const partial = `${file}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(partial, data);
    fs.renameSync(partial, file);
  } catch {
    try {
      fs.rmSync(partial, { force: true });
    } catch {
      // `force` ignores a missing file, not a path through a file (ENOTDIR): nothing was written there.
    }
  }
}

/** What Node gives a CommonJS module as `require` (lib/internal/modules/helpers.js, makeRequireFunction). */
function requireFor(mod) {
  const require = (id) => mod.require(id);
  const resolve = (request, options) => Module._resolveFilename(request, mod, false, options);
  resolve.paths = (request) => Module._resolveLookupPaths(request, mod);
  require.resolve = resolve;
  require.main = process.mainModule;
  require.extensions = Module._extensions;
  require.cache = Module._cache;
  return require;
}

const cacheable = (content, filename, format) =>
  format !== 'module' &&
  (filename.endsWith('.js') || filename.endsWith('.cjs')) &&
  filename.includes(NODE_MODULES) &&
  // A `vm` script has no loader for `import()` (Node 20's own for it is experimental and prints a warning).
  !content.includes('import(');

if (!Module.prototype._compile[INSTALLED]) {
  const nodeCompile = Module.prototype._compile;
  const compileWithCodeCache = function compileWithCodeCache(content, filename, format) {
    if (!cacheable(content, filename, format)) return nodeCompile.call(this, content, filename, format);
    const key = createHash('sha256').update(filename).update('\0').update(content).digest('hex');
    const file = path.join(CODE_CACHE_DIR, key);
    const cachedData = read(file);
    let script;
    try {
      // The wrapper's head on a line of its own, counted as line 0: lines and columns are the file's own.
      script = new vm.Script(`${WRAPPER_HEAD}\n${content}\n${WRAPPER_TAIL}`, { filename, cachedData, lineOffset: -1 });
    } catch {
      return nodeCompile.call(this, content, filename, format);
    }
    const result = script
      .runInThisContext({ displayErrors: true })
      .call(this.exports, this.exports, requireFor(this), this, filename, path.dirname(filename));
    if (cachedData === undefined || script.cachedDataRejected) writeWhole(file, script.createCachedData());
    return result;
  };
  compileWithCodeCache[INSTALLED] = true;
  Module.prototype._compile = compileWithCodeCache;
}

module.exports = { writeWhole };
