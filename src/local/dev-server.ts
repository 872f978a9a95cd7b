import { devServerSearchAttributeArgs } from '../../workflows/contracts/search-attributes';

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
