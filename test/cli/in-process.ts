/** `gpuo` run in the test's own process (runGpuo, as bin/gpuo.js runs it), its output and exit code captured. */
import { Readable } from 'node:stream';
import { runGpuo } from '../../src/cli/gpuo/main';

export interface GpuoRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function gpuoInProcess(argv: string[], env: NodeJS.ProcessEnv, stdin = ''): Promise<GpuoRun> {
  let stdout = '';
  let stderr = '';
  const code = await runGpuo(argv, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
    stdin: Readable.from([Buffer.from(stdin)]),
    env: { GPUO_API_URL: '', GPUO_API_KEY: '', ...env },
  });
  return { code, stdout, stderr };
}
