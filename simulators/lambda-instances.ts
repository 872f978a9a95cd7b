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

/** Cloud-init user data Lambda takes (its newer API): at most 1 MB. */
const USER_DATA_MAX_BYTES = 1024 * 1024;

/** The field errors of a launch body (`POST /instance-operations/launch`), as Lambda words them. */
export function launchFieldErrors(acct: Account, body: Record<string, unknown>): Record<string, string> {
  const allowed = new Set([
    'region_name',
    'instance_type_name',
    'ssh_key_names',
    'file_system_names',
    'quantity',
    'name',
    'user_data',
  ]);
  const fieldErrors: Record<string, string> = {};
  for (const k of Object.keys(body)) if (!allowed.has(k)) fieldErrors[k] = 'Unknown parameter.';
  if (typeof body.region_name !== 'string') fieldErrors.region_name = 'Required.';
  else if (!(body.region_name in REGIONS)) fieldErrors.region_name = `Unknown region ${body.region_name}.`;
  if (typeof body.instance_type_name !== 'string') fieldErrors.instance_type_name = 'Required.';
  const keys = body.ssh_key_names;
  if (!Array.isArray(keys) || keys.length !== 1 || typeof keys[0] !== 'string') {
    fieldErrors.ssh_key_names = 'Exactly one SSH key name must be specified.';
  } else if (!acct.sshKeys.some((k) => k.name === keys[0])) {
    fieldErrors.ssh_key_names = `SSH key ${keys[0]} does not exist.`;
  }
  if (
    body.file_system_names !== undefined &&
    (!Array.isArray(body.file_system_names) || body.file_system_names.length > 0)
  ) {
    fieldErrors.file_system_names = 'File system does not exist.';
  }
  if (body.quantity !== undefined && body.quantity !== 1) fieldErrors.quantity = 'Quantity must be 1.';
  if (
    body.name !== undefined &&
    body.name !== null &&
    (typeof body.name !== 'string' || body.name.length < 1 || body.name.length > 64)
  ) {
    fieldErrors.name = 'Name must be 1 to 64 characters.';
  }
  if (
    body.user_data !== undefined &&
    (typeof body.user_data !== 'string' || Buffer.byteLength(body.user_data) > USER_DATA_MAX_BYTES)
  ) {
    fieldErrors.user_data = 'User data must be a string of at most 1 MB.';
  }
  return fieldErrors;
}
