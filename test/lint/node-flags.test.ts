/**
 * The API and worker run with the same V8 flags wherever they are started (src/local/node-flags.ts): the npm
 * scripts, the Docker image, `npm start`'s children, the tests' child processes and `bench:launch`, which
 * measures them as shipped, and the jest workers of `npm test`, where the tests run them in-process.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { NODE_FLAGS } from '../../src/local/node-flags';
import { runEntry } from '../helpers/process';

const root = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

describe('V8 flags of the API and worker processes', () => {
  it('are in every script that starts them and in the Docker image', () => {
    const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>;
    // `test` and `test:unit`: jest hands its own flags to its workers, which run the API and worker in-process.
    for (const name of ['start:api', 'start:worker', 'bench:launch', 'test', 'test:unit']) {
      expect({ name, flags: NODE_FLAGS.filter((f) => !scripts[name]!.split(' ').includes(f)) }).toEqual({
        name,
        flags: [],
      });
    }
    expect(read('Dockerfile')).toMatch(new RegExp(`^ENV NODE_OPTIONS=${NODE_FLAGS.join(' ')}$`, 'm'));
    expect(read('src/main-local.ts')).toMatch(/args: \[\.\.\.NODE_FLAGS, '--import', 'tsx'/);
  });

  it('reach a process started the way the tests start the worker and the API', async () => {
    const p = runEntry('test/fixtures/print-exec-argv.ts');
    expect(await p.exited).toBe(0);
    expect(JSON.parse(p.output())).toEqual(expect.arrayContaining([...NODE_FLAGS]));
  });
});
