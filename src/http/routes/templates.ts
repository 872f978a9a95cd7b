import { z } from 'zod';
import { TEMPLATE_CATEGORIES, TEMPLATES } from '../../domain/templates';
import type { ApiRouter } from '../route';

export const TemplateRecord = z.object({
  slug: z.string(),
  name: z.string(),
  description: z.string(),
  icon: z.string().describe('Lucide icon name'),
  category: z.enum(TEMPLATE_CATEGORIES),
  docker_image: z.string(),
  min_vram_gb: z.number().int(),
  default_ports: z.array(z.number().int()),
});

export function registerTemplateRoutes(api: ApiRouter): void {
  api.add({
    method: 'get',
    path: '/v1/templates',
    tag: 'Templates',
    summary: 'List launch templates',
    auth: true,
    responses: { 200: { description: 'The catalog', schema: z.object({ data: z.array(TemplateRecord) }) } },
    handler: () => ({ body: { data: TEMPLATES } }),
  });
}
