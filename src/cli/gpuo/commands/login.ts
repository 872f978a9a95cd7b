/** `gpuo login`: check an API key and save it with the API URL. */
import { createGpuoClient } from '../../../../sdk/src';
import { DEFAULT_API_URL, readConfig, writeConfig } from '../config';
import { UsageError } from '../output';
import type { CommandSpec } from '../spec';
import { str } from './input';

export const LOGIN_COMMANDS: readonly CommandSpec[] = [
  {
    path: ['login'],
    summary: 'check an API key and save it (config dir, mode 0600) with the API URL',
    options: {
      key: { type: 'string', value: '<API key>', description: 'the key (default: GPUO_API_KEY)' },
      url: {
        type: 'string',
        value: '<API URL>',
        description: `the API (default: the saved one, else ${DEFAULT_API_URL})`,
      },
    },
    examples: ['login --key gpuo_sk_xxxxxxxxxxxxxxxxxxxxxxxx'],
    async run(ctx) {
      const key = str(ctx, 'key') ?? ctx.io.env.GPUO_API_KEY;
      if (!key) throw new UsageError('needs --key <API key> (or GPUO_API_KEY)');
      const url = str(ctx, 'url') ?? (await readConfig(ctx.io.env)).api_url ?? DEFAULT_API_URL;
      // Checked before it is saved: a mistyped key fails here, not at the next command.
      await createGpuoClient({ baseUrl: url, apiKey: key }).balance();
      const file = await writeConfig({ api_url: url, api_key: key }, ctx.io.env);
      ctx.out.print(
        { api_url: url, config_file: file },
        () => `logged in to ${url}; key saved to ${file} (mode 0600)\n`,
      );
    },
  },
];
