/**
 * Jest's runtime with V8's code cache. Jest compiles every module again for every test file (a fresh
 * `vm.compileFunction` per file, no cache), so each stack file paid for parsing @temporalio, slonik, koa, zod
 * and our own sources anew. This runtime keeps, per jest worker process, the code cache V8 produced the first
 * time a module's code was compiled and hands it to later compilations of the same code: the modules are
 * still evaluated afresh in each file's own context (no state is shared between files), only parsing is saved.
 */
const vm = require('node:vm');
const Runtime = require('jest-runtime').default;

/** filename → the compiled code and V8's cache for it (kept only while the code is unchanged). */
const cache = new Map();

class CodeCachingRuntime extends Runtime {
  constructor(...args) {
    super(...args);
    const executor = this.executor;
    const compile = executor.compile.bind(executor);
    executor.compile = (source, filename) => {
      const context = executor.environment.getVmContext();
      if (context == null || executor.resolution.isCoreModule(filename)) return compile(source, filename);
      const hit = cache.get(filename);
      const cachedData = hit && hit.source === source ? hit.data : undefined;
      let fn;
      try {
        fn = vm.compileFunction(source, executor.injectedModuleParameters, {
          filename,
          cachedData,
          produceCachedData: cachedData === undefined,
          importModuleDynamically: (specifier, _fn, attributes, ...rest) =>
            executor.dynamicImport(specifier, filename, context, attributes, rest[0]),
          parsingContext: context,
        });
      } catch {
        // Jest's own compile reports syntax errors (and ESM) the way jest users expect.
        return compile(source, filename);
      }
      if (fn.cachedDataProduced && fn.cachedData) cache.set(filename, { source, data: fn.cachedData });
      else if (cachedData !== undefined && fn.cachedDataRejected) cache.delete(filename);
      return fn;
    };
  }
}

module.exports = CodeCachingRuntime;
