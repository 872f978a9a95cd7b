/** How the Vast.ai simulator shows an instance: its status over time and the v0 (show) and v1 (list) JSON shapes. */
import { now, testIp } from './kit';
import { round, type VastInst } from './vastai-model';

export function actualStatus(i: VastInst): string | null {
  if (i.phase !== 'booting') return i.phase;
  const elapsed = now() - i.bootStart;
  if (elapsed >= i.bootDelay) return 'running';
  return elapsed < i.bootDelay / 3 ? null : 'loading';
}

/** Fields shared by both instance shapes (v0 show, v1 list). */
function instanceBase(i: VastInst): Record<string, unknown> {
  const o = i.offer;
  const status = actualStatus(i);
  const running = status === 'running';
  const since = i.bootStart + i.bootDelay;
  return {
    id: i.id,
    actual_status: status,
    intended_status: i.intended,
    cur_state: i.phase === 'booting' ? 'running' : 'stopped',
    next_state: i.intended,
    label: i.label,
    template_id: null,
    template_hash_id: null,
    template_name: null,
    image_uuid: i.image,
    image_args: [],
    image_runtype: i.runtype,
    jupyter_token: i.jupyterToken,
    status_msg: running ? 'success, running' : status === null ? null : `${status}`,
    public_ipaddr: testIp(o.machineId),
    local_ipaddrs: `10.0.${o.machineId % 250}.${(i.id % 250) + 2} 172.17.0.1 `,
    ssh_host: `ssh${(i.id % 9) + 1}.vast.ai`,
    ssh_idx: String((i.id % 9) + 1),
    ssh_port: i.sshPort,
    machine_dir_ssh_port: i.sshPort + 1,
    machine_id: o.machineId,
    start_date: i.createdAt / 1000,
    end_date: i.createdAt / 1000 + 2_592_000,
    uptime_mins: running ? Math.floor((now() - since) / 60_000) : null,
    duration: 2_592_000,
    cpu_arch: 'amd64',
    cpu_cores: o.cpuCores,
    cpu_cores_effective: o.cpuCores / 2,
    cpu_name: 'AMD EPYC 7543 32-Core Processor',
    cpu_ram: o.cpuRamMb,
    cpu_util: 0,
    mem_limit: null,
    mem_usage: null,
    vmem_usage: null,
    gpu_name: o.seed.gpu,
    gpu_arch: 'nvidia',
    gpu_totalram: o.seed.ramMb,
    gpu_ram: o.seed.ramMb,
    gpu_util: running ? (i.gpuUtil ?? 0) : null,
    gpu_temp: running ? 34 : null,
    gpu_frac: 1,
    gpu_lanes: 16,
    gpu_mem_bw: 1500,
    bw_nvlink: o.numGpus > 1 ? 400 : 0,
    disk_name: 'Samsung SSD 990',
    disk_space: i.disk,
    disk_bw: 2500,
    disk_util: 0,
    disk_usage: 0,
    direct_port_count: 100,
    direct_port_start: 40000,
    direct_port_end: 40099,
    static_ip: true,
    geolocation: o.geolocation,
    verification: 'verified',
    rentable: true,
    host_id: o.hostId,
    min_bid: o.minBid,
    is_bid: i.isBid,
    dph_base: o.dphBase,
    dph_total: i.price,
    dlperf: o.seed.dlperf * o.numGpus,
    dlperf_per_dphtotal: round((o.seed.dlperf * o.numGpus) / i.price, 2),
    flops_per_dphtotal: round((o.seed.dlperf * 1.3 * o.numGpus) / i.price, 2),
    total_flops: o.seed.dlperf * 1.3 * o.numGpus,
    score: round(o.seed.dlperf * o.numGpus * o.reliability, 2),
    reliability2: o.reliability,
    os_version: '22.04',
    mobo_name: 'H12SSL-i',
    pci_gen: 4,
    pcie_bw: 25,
    num_gpus: o.numGpus,
    webpage: null,
    search: { gpuCostPerHour: o.dphBase, diskHour: round(o.dphTotal - o.dphBase), totalHour: o.dphTotal },
    instance: {
      gpuCostPerHour: i.isBid ? i.price : o.dphBase,
      diskHour: round(o.dphTotal - o.dphBase),
      totalHour: i.price,
    },
    storage_cost: o.storageCost,
    storage_total_cost: round((o.storageCost * i.disk) / 720),
    vram_costperhour: round(i.price / (o.seed.ramMb * o.numGpus)),
    credit_balance: null,
    credit_discount: null,
    credit_discount_max: 0.4,
    client_run_time: 0,
    host_run_time: 2_592_000,
    external: false,
    time_remaining: '',
    time_remaining_isbid: '',
  };
}

/** `GET /api/v0/instances/{id}/` shape: ports as a list of numbers, env as `K=V` strings. */
export function instanceV0(i: VastInst): Record<string, unknown> {
  const running = actualStatus(i) === 'running';
  return {
    ...instanceBase(i),
    bundle_id: i.offer.id + 1,
    hosting_type: 1,
    logo: '/static/logos/vastai_small2.png',
    extra_env: i.env.map(([k, v]) => `${k}=${v}`),
    onstart: i.onstart,
    ports: running ? [22] : [],
  };
}

/** `GET /api/v1/instances/` shape: ports as the Docker mapping (null until running), env as pairs. */
export function instanceV1(i: VastInst): Record<string, unknown> {
  const running = actualStatus(i) === 'running';
  const country = i.offer.geolocation.split(',').pop()?.trim() ?? null;
  return {
    ...instanceBase(i),
    extra_env: i.env.map(([k, v]) => [k, v]),
    onstart: i.onstart ?? '',
    ports: running ? { '22/tcp': [{ HostIp: '0.0.0.0', HostPort: String(i.sshPort) }] } : null,
    country_code: country,
    volume_info: [],
  };
}
