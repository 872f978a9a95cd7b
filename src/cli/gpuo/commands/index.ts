/**
 * The command table of `gpuo`: every command with its words, arguments, options, examples and what it does,
 * one API resource after another. Each resource's commands live in their own file here and are assembled below in
 * the order `--help` lists them. The parser, `--help`, shell completion and the coverage test all read it.
 */
import type { CommandSpec } from '../spec';
import { ALERT_COMMANDS } from './alerts';
import { API_KEY_COMMANDS } from './api-keys';
import { BILLING_COMMANDS } from './billing';
import { COMPUTE_COMMANDS } from './compute';
import { EVENT_COMMANDS } from './events';
import { GPU_COMMANDS } from './gpus';
import { JOB_COMMANDS } from './jobs';
import { LIMIT_COMMANDS } from './limits';
import { LOGIN_COMMANDS } from './login';
import { PRICE_COMMANDS } from './prices';
import { PROVIDER_COMMANDS } from './providers';
import { RECOMMENDATION_COMMANDS } from './recommendations';
import { SCHEDULE_COMMANDS } from './schedules';
import { SSH_KEY_COMMANDS } from './ssh-keys';
import { TEMPLATE_COMMANDS } from './templates';
import { WEBHOOK_COMMANDS } from './webhooks';

export { spendSummary } from './billing';

export const COMMANDS: readonly CommandSpec[] = [
  ...LOGIN_COMMANDS,
  ...GPU_COMMANDS,
  ...PRICE_COMMANDS,
  ...COMPUTE_COMMANDS,
  ...SSH_KEY_COMMANDS,
  ...PROVIDER_COMMANDS,
  ...TEMPLATE_COMMANDS,
  ...LIMIT_COMMANDS,
  ...SCHEDULE_COMMANDS,
  ...JOB_COMMANDS,
  ...ALERT_COMMANDS,
  ...WEBHOOK_COMMANDS,
  ...EVENT_COMMANDS,
  ...BILLING_COMMANDS,
  ...RECOMMENDATION_COMMANDS,
  ...API_KEY_COMMANDS,
  // The CLI itself: here, beside the table completion reads.
  {
    path: ['completion'],
    summary: 'a shell completion script: `source <(gpuo completion bash)`, or zsh',
    args: [{ name: 'shell', required: true, choices: ['bash', 'zsh'] }],
    examples: ['completion bash'],
    async run(ctx) {
      // Loaded here: completion.ts reads this table.
      const { completionScript } = require('../completion') as typeof import('../completion');
      ctx.io.stdout.write(completionScript(ctx.args.shell as 'bash' | 'zsh', COMMANDS));
    },
  },
  {
    path: ['mcp'],
    summary: 'an MCP server on stdio for AI agents (bounded by the key’s scopes and cap)',
    examples: [],
    async run() {
      // Loaded only here: the MCP SDK is not needed by the other commands.
      const { serveMcp } = require('../mcp') as typeof import('../mcp');
      await serveMcp();
    },
  },
];
