/**
 * `npm run tools:install`: makes sure the Go-built binaries the tests run are present (Temporal CLI for the
 * dev server, stripe-mock), building them once into ~/.cache/gpu-orchestrator/bin with `go install`.
 */
import { findOrBuildTool, STRIPE_MOCK, TEMPORAL_CLI } from '../local/tool-binaries';

async function main(): Promise<void> {
  for (const tool of [TEMPORAL_CLI, STRIPE_MOCK]) {
    const started = Date.now();
    const found = await findOrBuildTool(tool, (m) => process.stdout.write(m + '\n'));
    if (!found) throw new Error(`${tool.binary} is missing and there is no Go toolchain to build it; install Go or set ${tool.envVar}`);
    process.stdout.write(`${tool.binary}: ${found} (${((Date.now() - started) / 1000).toFixed(1)}s)\n`);
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
});
