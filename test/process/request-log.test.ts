/**
 * The request line as a process writes it to stdout: queued and formatted in batches (src/logger.ts), yet in
 * the order logged among the other lines, byte for byte what `logger.info('request', fields)` writes, and
 * all of it out when the process ends (by `process.exit` or by running out of work).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

function runScript(ending: string): string[] {
  const script = [
    "const { createLogger, requestLogLine } = require('./src/logger');",
    "const logger = createLogger('info', { process: 'api' });",
    'const line = requestLogLine(logger);',
    "const fields = (i) => ({ request_id: 'req_' + i, account_id: i % 2 ? 'acct_1' : null, method: 'GET',",
    "  route: '/v1/pricing', path: i === 7 ? '/v1/\"odd\"\\u00e9' : '/v1/pricing', status: 200, ms: i / 100 });",
    // More than one queue's worth (256), with other lines in between.
    'for (let i = 0; i < 600; i++) {',
    '  line(fields(i));',
    "  if (i % 100 === 10) logger.info('between', { after: 'req_' + i });",
    '}',
    "logger.info('request', fields(7));",
    ending,
  ].join('\n');
  const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: root, encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return run.stdout.split('\n').filter(Boolean);
}

it.each([
  ['process.exit', 'process.exit(0);'],
  ['the end of its work', ''],
])(
  'writes every request line in the order logged, each as logger.info would, when the process ends by %s',
  (_, ending) => {
    const lines = runScript(ending);
    const parsed = lines.map(
      (l) => JSON.parse(l) as { msg: string; request_id?: string; after?: string; path?: string },
    );
    const expected: string[] = [];
    for (let i = 0; i < 600; i++) {
      expected.push(`request req_${i}`);
      if (i % 100 === 10) expected.push(`between req_${i}`);
    }
    expected.push('request req_7');
    expect(parsed.map((p) => `${p.msg} ${p.request_id ?? p.after}`)).toEqual(expected);
    // The queued line for req_7 and the one pino wrote for the same fields: the same bytes but for the time.
    const withoutTime = (l: string) => l.replace(/"time":"[^"]+"/, '"time":""');
    expect(withoutTime(lines.at(-1)!)).toBe(withoutTime(lines[7]!));
    expect(parsed[7]!.path).toBe('/v1/"odd"é');
  },
);
