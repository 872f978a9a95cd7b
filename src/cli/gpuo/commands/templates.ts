/** Launch templates (a schedule names one). */
import { call } from '../api';
import { table } from '../output';
import type { CommandSpec } from '../spec';

export const TEMPLATE_COMMANDS: readonly CommandSpec[] = [
  {
    path: ['templates'],
    summary: 'launch templates (a schedule names one)',
    examples: ['templates'],
    async run(ctx) {
      const listed = await call((await ctx.api()).raw.GET('/v1/templates'));
      ctx.out.print(listed, () => table(listed.data, ['slug', 'name', 'category', 'docker_image', 'min_vram_gb']));
    },
  },
];
