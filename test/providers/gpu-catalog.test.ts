import {
  allGpuSlugs,
  gpuBySlug,
  isKnownGpuSlug,
  lambdaInstanceTypes,
  runpodGpuId,
  slugFromLambda,
  slugFromRunpod,
  slugFromVast,
  vastGpuNames,
} from '../../src/providers/gpu-catalog';

describe('gpu catalog', () => {
  test('has every slug of provider-apis.md §4 with a display name and memory size', () => {
    const required = [
      'h100-80gb-sxm',
      'h100-80gb-pcie',
      'h100-94gb-nvl',
      'h200-141gb',
      'a100-80gb-sxm',
      'a100-80gb-pcie',
      'a100-40gb',
      'l40s-48gb',
      'rtx-4090',
      'rtx-a6000',
      'a10-24gb',
      'rtx-3090',
      'b200',
      'gh200-96gb',
    ];
    for (const slug of required) {
      expect(isKnownGpuSlug(slug)).toBe(true);
      const entry = gpuBySlug(slug)!;
      expect(entry.display_name.length).toBeGreaterThan(0);
      expect(entry.vram_gb).toBeGreaterThan(0);
    }
    expect(new Set(allGpuSlugs()).size).toBe(allGpuSlugs().length);
    expect(isKnownGpuSlug('h100')).toBe(false);
    expect(gpuBySlug('a100-40gb')?.vram_gb).toBe(40);
  });

  test('RunPod ids map both ways and unknown ids map to null', () => {
    expect(slugFromRunpod('NVIDIA H100 80GB HBM3')).toBe('h100-80gb-sxm');
    expect(slugFromRunpod('NVIDIA A100-SXM4-80GB')).toBe('a100-80gb-sxm');
    expect(slugFromRunpod('NVIDIA A100 80GB PCIe')).toBe('a100-80gb-pcie');
    expect(slugFromRunpod('NVIDIA H200 NVL')).toBe('h200-141gb');
    expect(slugFromRunpod('NVIDIA  RTX A4500')).toBeNull();
    expect(slugFromRunpod('NVIDIA RTX A5000')).toBeNull();
    expect(slugFromRunpod(undefined)).toBeNull();
    expect(runpodGpuId('a10-24gb')).toBeNull();
    for (const slug of allGpuSlugs()) {
      const id = runpodGpuId(slug);
      if (id) expect(slugFromRunpod(id)).toBe(slug);
    }
  });

  test('Vast names map by name, and by gpu_ram where one name covers two sizes', () => {
    expect(slugFromVast('RTX 4090')).toBe('rtx-4090');
    expect(slugFromVast('A100 SXM4', 81920)).toBe('a100-80gb-sxm');
    expect(slugFromVast('A100 SXM4', 40960)).toBe('a100-40gb');
    expect(slugFromVast('A100 PCIE', 81920)).toBe('a100-80gb-pcie');
    expect(slugFromVast('A100 PCIE', 40960)).toBe('a100-40gb');
    // Without the memory size an A100 is not guessed.
    expect(slugFromVast('A100 SXM4')).toBeNull();
    expect(slugFromVast('RTX_4090')).toBeNull();
    expect(slugFromVast('Tesla V100', 16384)).toBeNull();
    expect(vastGpuNames('h200-141gb')).toEqual(['H200', 'H200 NVL']);
  });

  test('Lambda instance types carry slug and GPU count', () => {
    expect(slugFromLambda('gpu_8x_h100_sxm5')).toEqual({ slug: 'h100-80gb-sxm', gpuCount: 8 });
    expect(slugFromLambda('gpu_1x_a100')).toEqual({ slug: 'a100-40gb', gpuCount: 1 });
    expect(slugFromLambda('gpu_8x_a100_80gb_sxm4')).toEqual({ slug: 'a100-80gb-sxm', gpuCount: 8 });
    expect(slugFromLambda('gpu_1x_gh200')).toEqual({ slug: 'gh200-96gb', gpuCount: 1 });
    expect(slugFromLambda('gpu_1x_rtx6000')).toBeNull();
    expect(slugFromLambda('gpu_8x_v100')).toBeNull();
    expect(slugFromLambda('cpu_4x_general')).toBeNull();
    expect(lambdaInstanceTypes('h100-80gb-sxm', 8)).toEqual(['gpu_8x_h100_sxm5']);
    expect(lambdaInstanceTypes('a100-40gb', 1)).toEqual(['gpu_1x_a100', 'gpu_1x_a100_sxm4', 'gpu_1x_a100_pcie']);
    expect(lambdaInstanceTypes('rtx-4090', 1)).toEqual([]);
    for (const slug of allGpuSlugs()) {
      for (const n of [1, 2, 4, 8]) {
        for (const name of lambdaInstanceTypes(slug, n)) expect(slugFromLambda(name)).toEqual({ slug, gpuCount: n });
      }
    }
  });
});
