/**
 * The normalized GPU slugs (provider-apis.md §4) and how each provider names them. Every mapping is an exact
 * lookup: a provider name that is not in this table maps to `null`, never to a "closest" slug.
 */

export type GpuSlug = string;

export interface GpuCatalogEntry {
  slug: GpuSlug;
  display_name: string;
  vram_gb: number;
  /** RunPod `gpuTypeId`s / v2 catalog ids; the first is the one launches use. */
  runpod: readonly string[];
  /** RunPod still names this GPU (old pods) but no longer sells it. */
  runpodLegacy?: true;
  /** Vast `gpu_name`s. */
  vast: readonly string[];
  /** When Vast uses one name for several memory sizes, the `gpu_ram` (MB) range that belongs to this slug. */
  vastRamMb?: { min: number; max: number };
  /**
   * Lambda instance-type suffixes (`gpu_{N}x_<suffix>`) with the GPU counts each is sold in. The counts are
   * what the providers' catalogs list; the adapter still launches only types that `/instance-types` returns.
   */
  lambda: readonly { suffix: string; counts: readonly number[] }[];
}

/** Vast lists A100s of both sizes under one name; below this many MB of `gpu_ram` it is the 40 GB part. */
const A100_80GB_MIN_MB = 60_000;

const CATALOG: readonly GpuCatalogEntry[] = [
  {
    slug: 'h100-80gb-sxm',
    display_name: 'NVIDIA H100 SXM 80GB',
    vram_gb: 80,
    runpod: ['NVIDIA H100 80GB HBM3'],
    vast: ['H100 SXM'],
    lambda: [{ suffix: 'h100_sxm5', counts: [1, 2, 4, 8] }],
  },
  {
    slug: 'h100-80gb-pcie',
    display_name: 'NVIDIA H100 PCIe 80GB',
    vram_gb: 80,
    runpod: ['NVIDIA H100 PCIe'],
    vast: ['H100 PCIE'],
    lambda: [{ suffix: 'h100_pcie', counts: [1] }],
  },
  {
    slug: 'h100-94gb-nvl',
    display_name: 'NVIDIA H100 NVL 94GB',
    vram_gb: 94,
    runpod: ['NVIDIA H100 NVL'],
    vast: ['H100 NVL'],
    lambda: [],
  },
  {
    slug: 'h200-141gb',
    display_name: 'NVIDIA H200 141GB',
    vram_gb: 141,
    runpod: ['NVIDIA H200', 'NVIDIA H200 NVL'],
    vast: ['H200', 'H200 NVL'],
    lambda: [],
  },
  {
    slug: 'a100-80gb-sxm',
    display_name: 'NVIDIA A100 SXM 80GB',
    vram_gb: 80,
    runpod: ['NVIDIA A100-SXM4-80GB'],
    vast: ['A100 SXM4', 'A100 SXM'],
    vastRamMb: { min: A100_80GB_MIN_MB, max: Number.POSITIVE_INFINITY },
    lambda: [{ suffix: 'a100_80gb_sxm4', counts: [8] }],
  },
  {
    slug: 'a100-80gb-pcie',
    display_name: 'NVIDIA A100 PCIe 80GB',
    vram_gb: 80,
    runpod: ['NVIDIA A100 80GB PCIe'],
    vast: ['A100 PCIE'],
    vastRamMb: { min: A100_80GB_MIN_MB, max: Number.POSITIVE_INFINITY },
    lambda: [],
  },
  {
    slug: 'a100-40gb',
    display_name: 'NVIDIA A100 40GB',
    vram_gb: 40,
    runpod: ['NVIDIA A100-SXM4-40GB'],
    runpodLegacy: true,
    vast: ['A100 SXM4', 'A100 SXM', 'A100 PCIE'],
    vastRamMb: { min: 1, max: A100_80GB_MIN_MB - 1 },
    lambda: [
      { suffix: 'a100', counts: [1, 2, 4, 8] },
      { suffix: 'a100_sxm4', counts: [1] },
      { suffix: 'a100_pcie', counts: [1] },
    ],
  },
  {
    slug: 'l40s-48gb',
    display_name: 'NVIDIA L40S 48GB',
    vram_gb: 48,
    runpod: ['NVIDIA L40S'],
    vast: ['L40S'],
    lambda: [],
  },
  {
    slug: 'l40-48gb',
    display_name: 'NVIDIA L40 48GB',
    vram_gb: 48,
    runpod: ['NVIDIA L40'],
    vast: ['L40'],
    lambda: [],
  },
  {
    slug: 'rtx-4090',
    display_name: 'NVIDIA GeForce RTX 4090',
    vram_gb: 24,
    runpod: ['NVIDIA GeForce RTX 4090'],
    vast: ['RTX 4090'],
    lambda: [],
  },
  {
    slug: 'rtx-5090',
    display_name: 'NVIDIA GeForce RTX 5090',
    vram_gb: 32,
    runpod: ['NVIDIA GeForce RTX 5090'],
    vast: ['RTX 5090'],
    lambda: [],
  },
  {
    slug: 'rtx-3090',
    display_name: 'NVIDIA GeForce RTX 3090',
    vram_gb: 24,
    runpod: ['NVIDIA GeForce RTX 3090'],
    vast: ['RTX 3090'],
    lambda: [],
  },
  {
    slug: 'rtx-a6000',
    display_name: 'NVIDIA RTX A6000',
    vram_gb: 48,
    runpod: ['NVIDIA RTX A6000'],
    vast: ['RTX A6000'],
    lambda: [{ suffix: 'a6000', counts: [1, 2, 4] }],
  },
  {
    slug: 'rtx-6000-ada',
    display_name: 'NVIDIA RTX 6000 Ada',
    vram_gb: 48,
    runpod: ['NVIDIA RTX 6000 Ada Generation'],
    vast: ['RTX 6000Ada'],
    lambda: [],
  },
  {
    slug: 'a40-48gb',
    display_name: 'NVIDIA A40 48GB',
    vram_gb: 48,
    runpod: ['NVIDIA A40'],
    vast: ['A40'],
    lambda: [],
  },
  {
    slug: 'a10-24gb',
    display_name: 'NVIDIA A10 24GB',
    vram_gb: 24,
    runpod: [],
    vast: ['A10', 'A10g'],
    lambda: [{ suffix: 'a10', counts: [1] }],
  },
  {
    slug: 'l4-24gb',
    display_name: 'NVIDIA L4 24GB',
    vram_gb: 24,
    runpod: ['NVIDIA L4'],
    vast: ['L4'],
    lambda: [],
  },
  {
    slug: 'b200',
    display_name: 'NVIDIA B200 180GB',
    vram_gb: 180,
    runpod: ['NVIDIA B200'],
    vast: ['B200'],
    lambda: [{ suffix: 'b200_sxm6', counts: [1, 2, 4, 8] }],
  },
  {
    slug: 'gh200-96gb',
    display_name: 'NVIDIA GH200 96GB',
    vram_gb: 96,
    runpod: [],
    vast: ['GH200 SXM'],
    lambda: [{ suffix: 'gh200', counts: [1] }],
  },
];

const BY_SLUG = new Map<GpuSlug, GpuCatalogEntry>(CATALOG.map((e) => [e.slug, e]));

const BY_RUNPOD_ID = new Map<string, GpuSlug>();
for (const e of CATALOG) for (const id of e.runpod) BY_RUNPOD_ID.set(id, e.slug);

const BY_LAMBDA_SUFFIX = new Map<string, GpuSlug>();
for (const e of CATALOG) for (const l of e.lambda) BY_LAMBDA_SUFFIX.set(l.suffix, e.slug);

const LAMBDA_TYPE = /^gpu_(\d+)x_([a-z0-9_]+)$/;

/** The catalog entry for a slug, or `undefined`. */
export function gpuBySlug(slug: string): GpuCatalogEntry | undefined {
  return BY_SLUG.get(slug);
}

export function isKnownGpuSlug(slug: string): slug is GpuSlug {
  return BY_SLUG.has(slug);
}

/**
 * The names people type for a GPU, each naming one slug or a family of several (`h100` is three GPUs). Keys
 * are compared after {@link normalizeGpuName}; every slug also answers to its own normalized form.
 */
const ALIASES: Readonly<Record<string, readonly GpuSlug[]>> = {
  h100: ['h100-80gb-sxm', 'h100-80gb-pcie', 'h100-94gb-nvl'],
  h100sxm: ['h100-80gb-sxm'],
  h100sxm5: ['h100-80gb-sxm'],
  h100pcie: ['h100-80gb-pcie'],
  h100nvl: ['h100-94gb-nvl'],
  h200: ['h200-141gb'],
  a100: ['a100-80gb-sxm', 'a100-80gb-pcie', 'a100-40gb'],
  a10080gb: ['a100-80gb-sxm', 'a100-80gb-pcie'],
  a100sxm: ['a100-80gb-sxm'],
  a100pcie: ['a100-80gb-pcie'],
  a10040gb: ['a100-40gb'],
  l40s: ['l40s-48gb'],
  l40: ['l40-48gb'],
  '4090': ['rtx-4090'],
  rtx4090: ['rtx-4090'],
  geforcertx4090: ['rtx-4090'],
  '5090': ['rtx-5090'],
  rtx5090: ['rtx-5090'],
  '3090': ['rtx-3090'],
  rtx3090: ['rtx-3090'],
  a6000: ['rtx-a6000'],
  rtxa6000: ['rtx-a6000'],
  '6000ada': ['rtx-6000-ada'],
  rtx6000ada: ['rtx-6000-ada'],
  a40: ['a40-48gb'],
  a10: ['a10-24gb'],
  l4: ['l4-24gb'],
  b200: ['b200'],
  gh200: ['gh200-96gb'],
};

/** A GPU name as compared: lower case, without a leading "nvidia" and without spaces, dashes or underscores. */
export function normalizeGpuName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/^nvidia[\s_-]*/, '')
    .replace(/[\s_-]+/g, '');
}

const BY_NAME = new Map<string, readonly GpuSlug[]>();
for (const e of CATALOG) BY_NAME.set(normalizeGpuName(e.slug), [e.slug]);
for (const [alias, slugs] of Object.entries(ALIASES)) if (!BY_NAME.has(alias)) BY_NAME.set(alias, slugs);

/** The aliases of a slug: the names that resolve to it alone (a family name naming several is not one). */
export function gpuAliases(slug: GpuSlug): string[] {
  return Object.entries(ALIASES)
    .filter(([, slugs]) => slugs.length === 1 && slugs[0] === slug)
    .map(([alias]) => alias);
}

/** The aliases that name several slugs (`h100`), with the slugs each means. */
export function gpuFamilies(): Record<string, GpuSlug[]> {
  return Object.fromEntries(
    Object.entries(ALIASES)
      .filter(([, slugs]) => slugs.length > 1)
      .map(([alias, slugs]) => [alias, [...slugs]]),
  );
}

/**
 * What a typed GPU name means: a slug as it is, or an alias naming exactly one slug (`4090` → `rtx-4090`);
 * `candidates` when it names several (`h100`), `unknown` when it names none.
 */
export function resolveGpuName(name: string): { slug: GpuSlug } | { candidates: GpuSlug[] } | { unknown: true } {
  if (BY_SLUG.has(name)) return { slug: name };
  const slugs = BY_NAME.get(normalizeGpuName(name));
  if (!slugs) return { unknown: true };
  return slugs.length === 1 ? { slug: slugs[0]! } : { candidates: [...slugs] };
}

/** Every catalog entry, in catalog order. */
export function gpuCatalogEntries(): readonly GpuCatalogEntry[] {
  return CATALOG;
}

/** Every slug, in catalog order. */
export function allGpuSlugs(): GpuSlug[] {
  return CATALOG.map((e) => e.slug);
}

/** Slug for a RunPod GPU id (`gpu.id` / catalog `id`); `null` when the id is not in the table. */
export function slugFromRunpod(gpuTypeId: string | null | undefined): GpuSlug | null {
  if (!gpuTypeId) return null;
  return BY_RUNPOD_ID.get(gpuTypeId) ?? null;
}

/**
 * Slug for a Vast `gpu_name`. Names shared by several memory sizes (A100) need `gpu_ram` in MB; without it
 * (or outside every range) the answer is `null`.
 */
export function slugFromVast(gpuName: string | null | undefined, gpuRamMb?: number | null): GpuSlug | null {
  if (!gpuName) return null;
  const candidates = CATALOG.filter((e) => e.vast.includes(gpuName));
  if (candidates.length === 0) return null;
  const ranged = candidates.filter((e) => e.vastRamMb);
  if (ranged.length === 0) return candidates.length === 1 ? candidates[0]!.slug : null;
  if (typeof gpuRamMb !== 'number' || !Number.isFinite(gpuRamMb) || gpuRamMb <= 0) return null;
  const hit = ranged.filter((e) => gpuRamMb >= e.vastRamMb!.min && gpuRamMb <= e.vastRamMb!.max);
  return hit.length === 1 ? hit[0]!.slug : null;
}

/** Slug and GPU count for a Lambda instance-type name (`gpu_8x_h100_sxm5`); `null` when not in the table. */
export function slugFromLambda(
  instanceTypeName: string | null | undefined,
): { slug: GpuSlug; gpuCount: number } | null {
  if (!instanceTypeName) return null;
  const m = LAMBDA_TYPE.exec(instanceTypeName);
  if (!m) return null;
  const gpuCount = Number(m[1]);
  const slug = BY_LAMBDA_SUFFIX.get(m[2]!);
  if (!slug || !Number.isInteger(gpuCount) || gpuCount < 1) return null;
  return { slug, gpuCount };
}

/** The RunPod GPU id to launch a slug with; `null` when RunPod does not sell it. */
export function runpodGpuId(slug: GpuSlug): string | null {
  return BY_SLUG.get(slug)?.runpod[0] ?? null;
}

/** The Vast `gpu_name`s of a slug (empty when Vast does not list it). */
export function vastGpuNames(slug: GpuSlug): string[] {
  return [...(BY_SLUG.get(slug)?.vast ?? [])];
}

/** The Vast `gpu_ram` range (MB) a slug needs when its names are shared, for offer search filters. */
export function vastGpuRamRangeMb(slug: GpuSlug): { min: number; max: number } | null {
  const r = BY_SLUG.get(slug)?.vastRamMb;
  return r ? { ...r } : null;
}

/** Lambda instance-type names that carry `gpuCount` GPUs of a slug, most common first. */
export function lambdaInstanceTypes(slug: GpuSlug, gpuCount: number): string[] {
  const entry = BY_SLUG.get(slug);
  if (!entry) return [];
  return entry.lambda.filter((l) => l.counts.includes(gpuCount)).map((l) => `gpu_${gpuCount}x_${l.suffix}`);
}
