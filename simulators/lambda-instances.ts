/**
 * How the Lambda simulator shows an instance: its status over time, when a terminated one leaves the account, and
 * the JSON of an instance and its type.
 */
import { now, testIp, type SimInstanceView } from './kit';
import { type Account, type LambdaInst, REGIONS, type TypeSeed } from './lambda-model';

export function instanceView(acct: Account, i: LambdaInst): SimInstanceView {
  return {
    id: i.id,
    name: i.name,
    status: instanceStatus(i),
    gpu: i.type.name,
    gpuCount: i.type.specs.gpus,
    spot: false,
    region: i.region,
    image: null,
    env: {},
    sshKeys: i.sshKeyNames.map((n) => acct.sshKeys.find((k) => k.name === n)?.public_key ?? n),
    createdAt: new Date(i.createdAt).toISOString(),
  };
}

export function instanceStatus(i: LambdaInst): 'booting' | 'active' | 'unhealthy' | 'terminating' | 'terminated' {
  const t = now();
  if (i.terminatedAt !== null) return t - i.terminatedAt >= i.terminateDelay ? 'terminated' : 'terminating';
  if (i.unhealthy) return 'unhealthy';
  return t - i.bootStart >= i.bootDelay ? 'active' : 'booting';
}

/** Terminated instances leave the account one terminate delay after they reached `terminated`. */
export function sweep(acct: Account): void {
  const t = now();
  for (const [id, i] of acct.instances) {
    if (i.terminatedAt !== null && t - i.terminatedAt >= 2 * i.terminateDelay) acct.instances.delete(id);
  }
}

export function typeJson(type: TypeSeed): Record<string, unknown> {
  return {
    name: type.name,
    description: type.description,
    gpu_description: type.gpu_description,
    price_cents_per_hour: type.price_cents_per_hour,
    specs: { ...type.specs },
  };
}

export function instanceJson(i: LambdaInst): Record<string, unknown> {
  const status = instanceStatus(i);
  const up = status === 'active' || status === 'unhealthy';
  const ip = up ? testIp(i.ipIndex + 100) : null;
  return {
    id: i.id,
    name: i.name,
    ip,
    private_ip: up ? `10.19.${i.ipIndex % 250}.${(i.ipIndex % 200) + 10}` : null,
    status,
    ssh_key_names: [...i.sshKeyNames],
    file_system_names: [],
    region: { name: i.region, description: REGIONS[i.region] ?? i.region },
    instance_type: typeJson(i.type),
    hostname: ip,
    jupyter_token: up ? i.jupyterToken : null,
    jupyter_url: up ? `https://jupyter-${i.id}.lambdaspaces.com/?token=${i.jupyterToken}` : null,
    is_reserved: false,
  };
}
