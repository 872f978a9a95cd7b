/** GPU types and the names they answer to. */
import { call } from '../api';
import { table } from '../output';
import type { CommandSpec } from '../spec';

export const GPU_COMMANDS: readonly CommandSpec[] = [
  {
    path: ['gpus'],
    summary: 'the GPU types: slugs, names, memory and the aliases each answers to',
    examples: ['gpus'],
    async run(ctx) {
      const gpus = await call((await ctx.api()).raw.GET('/v1/gpus'));
      ctx.out.print(
        gpus,
        () =>
          table(
            gpus.data.map((g) => ({ ...g, vram_gb: `${g.vram_gb} GB`, aliases: g.aliases.join(', ') })),
            ['gpu_type', 'display_name', 'vram_gb', 'aliases'],
          ) +
          Object.entries(gpus.families)
            .map(([name, slugs]) => `${name}: one of ${slugs.join(', ')}\n`)
            .join(''),
      );
    },
  },
];
