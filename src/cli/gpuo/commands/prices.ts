/** Prices: every GPU type, one type across providers, and the price history. */
import { call } from '../api';
import { table } from '../output';
import type { CommandSpec } from '../spec';
import { flag, str } from './input';
import { money } from './render';

export const PRICE_COMMANDS: readonly CommandSpec[] = [
  {
    path: ['prices'],
    aliases: [['offers']],
    summary: 'prices: every GPU type, or one type across providers',
    args: [{ name: 'gpu' }],
    examples: ['prices', 'prices rtx-a6000'],
    async run(ctx) {
      const sdk = await ctx.api();
      const gpu = ctx.args.gpu;
      if (gpu) {
        const compare = await call(sdk.raw.GET('/v1/pricing/compare', { params: { query: { gpu } } }));
        ctx.out.print(compare, () =>
          table(
            compare.offers.map((o) => ({ ...o, price_per_hour: money(o.price_per_hour) })),
            ['provider', 'price_per_hour', 'availability', 'spot', 'region'],
          ),
        );
        return;
      }
      const all = await call(sdk.raw.GET('/v1/pricing'));
      ctx.out.print(all, () =>
        table(
          all.gpu_types.map((g) => {
            const available = g.offers.filter((o) => o.availability > 0);
            return {
              gpu_type: g.gpu_type,
              offers: g.offers.length,
              cheapest_available: available.length ? money(Math.min(...available.map((o) => o.price_per_hour))) : '-',
            };
          }),
          ['gpu_type', 'offers', 'cheapest_available'],
        ),
      );
    },
  },
  {
    path: ['prices', 'history'],
    summary: 'the lowest on-demand (or spot) price per provider over a period',
    args: [{ name: 'gpu', required: true }],
    options: {
      period: { type: 'string', choices: ['24h', '7d', '30d'], description: 'how far back (default 7d)' },
      spot: { type: 'boolean', description: 'the spot prices instead (Vast.ai alone sells spot)' },
    },
    examples: ['prices history rtx-a6000 --period 24h', 'prices history rtx-4090 --spot'],
    async run(ctx) {
      const period = (str(ctx, 'period') ?? '7d') as '24h' | '7d' | '30d';
      // Sent only when asked, so the request without the flag is the one every client sends.
      const query = { gpu: ctx.args.gpu!, period, ...(flag(ctx, 'spot') ? { spot: 'true' as const } : {}) };
      const history = await call((await ctx.api()).raw.GET('/v1/pricing/history', { params: { query } }));
      ctx.out.print(history, () =>
        table(
          history.data.map((p) => ({ ...p, min_price_per_hour: money(p.min_price_per_hour) })),
          ['timestamp', 'provider', 'min_price_per_hour'],
        ),
      );
    },
  },
];
