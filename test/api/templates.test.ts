import { createTestContext, type TestContext } from '../helpers/context';

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

describe('GET /v1/templates', () => {
  it('requires a key', async () => {
    expect((await t.http.get('/v1/templates')).status).toBe(401);
  });

  it(
    'returns a catalog of at least 10 templates with exactly the spec fields, ' + 'covering all four categories',
    async () => {
      const { auth } = await t.newAccount();
      const res = await t.http.get('/v1/templates').set(auth);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['data']);
      const data = res.body.data as Record<string, unknown>[];
      expect(data.length).toBeGreaterThanOrEqual(10);
      for (const tpl of data) {
        expect(Object.keys(tpl).sort()).toEqual([
          'category',
          'default_ports',
          'description',
          'docker_image',
          'icon',
          'min_vram_gb',
          'name',
          'slug',
        ]);
        expect(tpl).toEqual({
          slug: expect.stringMatching(/^[a-z0-9-]+$/),
          name: expect.any(String),
          description: expect.any(String),
          icon: expect.stringMatching(/^[a-z0-9-]+$/),
          category: expect.stringMatching(/^(ml-training|inference|creative|general)$/),
          docker_image: expect.stringMatching(/^[a-z0-9./_-]+(:[A-Za-z0-9._-]+)?$/),
          min_vram_gb: expect.any(Number),
          default_ports: expect.any(Array),
        });
        expect(Number.isInteger(tpl.min_vram_gb)).toBe(true);
        expect((tpl.default_ports as number[]).every((p) => Number.isInteger(p) && p > 0 && p < 65536)).toBe(true);
      }
      expect(new Set(data.map((d) => d.category))).toEqual(
        new Set(['ml-training', 'inference', 'creative', 'general']),
      );
      expect(new Set(data.map((d) => d.slug)).size).toBe(data.length);
    },
  );
});
