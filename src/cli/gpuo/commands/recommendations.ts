/** Recommendations: cheaper offers for the running instances. */
import { call } from '../api';
import { table } from '../output';
import type { CommandSpec } from '../spec';
import { money } from './render';

export const RECOMMENDATION_COMMANDS: readonly CommandSpec[] = [
  {
    path: ['recommendations'],
    summary: 'cheaper offers for the running instances',
    examples: ['recommendations'],
    async run(ctx) {
      const r = await call((await ctx.api()).raw.GET('/v1/recommendations'));
      ctx.out.print(r, () => {
        const rows = r.recommendations.map((x) => ({
          ...x,
          current: money(x.current_price_per_hour),
          alternative: [
            x.alternative.provider + (x.alternative.spot ? ' spot' : ''),
            money(x.alternative.price_per_hour),
          ].join(' '),
          monthly_savings: money(x.estimated_monthly_savings),
        }));
        const note = r.message ? `${r.message}\n` : '';
        return (
          note +
          table(rows, [
            'instance_id',
            'provider',
            'gpu_type',
            'gpu_count',
            'current',
            'alternative',
            'monthly_savings',
          ]) +
          `estimated monthly savings: ${money(r.estimated_monthly_savings)}\n`
        );
      });
    },
  },
  {
    path: ['recommendations', 'summary'],
    summary: 'estimated monthly savings and the number of recommendations',
    examples: ['recommendations summary'],
    async run(ctx) {
      const s = await call((await ctx.api()).raw.GET('/v1/recommendations/summary'));
      ctx.out.print(
        s,
        () =>
          `${s.recommendation_count} recommendations, ` +
          `estimated monthly savings ${money(s.estimated_monthly_savings)}\n`,
      );
    },
  },
];
