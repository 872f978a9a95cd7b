/**
 * What Vast.ai answers (spec `vastai.yaml`): the offer and instance shapes, how an instance reads as ours
 * (status, GPU slug, price, SSH address) and the message of an error body.
 */
import { slugFromVast } from './gpu-catalog';
import { roundDollars, str } from './http';
import type { InstanceStatus, ProviderInstance } from './types';

export interface VastOffer {
  id: number;
  gpu_name?: string;
  gpu_ram?: number;
  num_gpus?: number;
  dph_total?: number;
  min_bid?: number;
  geolocation?: string;
  rentable?: boolean;
  rented?: boolean;
}

export interface VastInstance {
  id: number;
  label?: string | null;
  actual_status?: string | null;
  intended_status?: string | null;
  cur_state?: string | null;
  gpu_name?: string;
  gpu_ram?: number;
  num_gpus?: number;
  /** Percent, for the instance as a whole (every GPU alike); null while it does not run. */
  gpu_util?: number | null;
  dph_total?: number;
  is_bid?: boolean;
  geolocation?: string;
  image_uuid?: string;
  public_ipaddr?: string;
  ssh_host?: string;
  ssh_port?: number;
  start_date?: number;
}

/**
 * `actual_status`: null/loading (and a brief `created`) while provisioning; stopped/exited/frozen are stopped;
 * offline/unknown may never come back, which the caller sees as unknown. A running container whose intended
 * status is already `stopped` is on its way down.
 */
export function vastStatus(inst: Pick<VastInstance, 'actual_status' | 'intended_status'>): InstanceStatus {
  switch (inst.actual_status ?? null) {
    case null:
    case 'loading':
    case 'created':
    case 'rebooting':
      return 'provisioning';
    case 'running':
      return inst.intended_status === 'stopped' ? 'stopping' : 'running';
    case 'stopped':
    case 'exited':
    case 'frozen':
      return 'stopped';
    default:
      return 'unknown';
  }
}

export function normalizeVastInstance(inst: VastInstance): ProviderInstance {
  const start = typeof inst.start_date === 'number' && inst.start_date > 0 ? new Date(inst.start_date * 1000) : null;
  return {
    id: String(inst.id),
    provider: 'vastai',
    name: inst.label ?? null,
    status: vastStatus(inst),
    providerStatus: inst.actual_status ?? null,
    gpuType: slugFromVast(inst.gpu_name, inst.gpu_ram),
    gpuCount: inst.num_gpus ?? 1,
    pricePerHour: typeof inst.dph_total === 'number' ? roundDollars(inst.dph_total) : null,
    spot: inst.is_bid === true,
    region: inst.geolocation ?? null,
    dockerImage: inst.image_uuid ?? null,
    publicIp: inst.public_ipaddr || null,
    ssh: inst.ssh_host && inst.ssh_port ? { host: inst.ssh_host, port: inst.ssh_port, user: 'root' } : null,
    createdAt: start && !Number.isNaN(start.getTime()) ? start.toISOString() : null,
    // Vast's `start_date` is when the rental started: metering (and a charge for an instance that ended before
    // we first saw it running) starts there when it is plausible (see markRunning).
    startedAt: vastStatus(inst) === 'running' && start && !Number.isNaN(start.getTime()) ? start.toISOString() : null,
    gpuUtilization:
      typeof inst.gpu_util === 'number'
        ? Array.from({ length: inst.num_gpus ?? 1 }, () => inst.gpu_util as number)
        : null,
  };
}

/** The message of a Vast error body (`{success:false,error,msg}`), with its error code when the message lacks it. */
export function vastMessage(body: unknown, text: string): string | undefined {
  const msg = str(body, 'msg') ?? str(body, 'detail') ?? str(body, 'message');
  const code = str(body, 'error');
  if (msg && code && !msg.includes(code)) return `${code}: ${msg}`;
  return msg ?? code ?? (typeof body === 'string' ? body : text || undefined);
}
