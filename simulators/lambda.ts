/**
 * Lambda Cloud simulator (`openapi/lambda-cloud-v1.5.3.yaml`), served under `/api/v1`: instance types, instances,
 * launch/terminate/restart, SSH keys, file systems. Successes are wrapped in `{"data": …}`, errors are
 * `{"error":{code,message,suggestion}}`, state is per API key (Bearer, `Basic base64(key:)` or `Basic key`).
 *
 * An instance is `booting` for the boot delay, then `active` with an IP. Terminate makes it `terminating` for the
 * terminate delay, then `terminated`; after another terminate delay it is gone (404). A launch into a region that
 * has no capacity for the type answers 400 `instance-operations/launch/insufficient-capacity`.
 *
 * `user_data` (cloud-init user data, at most 1 MB; from Lambda's newer launch API) is accepted. Text starting with
 * `#!` is a script cloud-init runs once at first boot: a job's wrapper in it runs for real (./containers) once the
 * instance is `active`, with a simulated `docker` on its PATH (./docker-shim.sh) for the job's image. A VM does not
 * end when that script ends: the instance stays `active` until terminated.
 */
import { slugFromLambda } from '../src/providers/gpu-catalog';
import { now, type SimInstanceView, type SimRequest, type SimResponse, type SimulatorOptions } from './kit';
import { SimContainers } from './containers';
import { instanceJson, instanceStatus, instanceView, launchFieldErrors, sweep, typeJson } from './lambda-instances';
import {
  type Account,
  fail,
  hex,
  LAMBDA_SIM_TYPES,
  type LambdaControl,
  type LambdaInst,
  REGIONS,
  SSH_KEY_LINE,
  type TypeSeed,
} from './lambda-model';
import { type OwnControl, ProviderSimulator } from './provider-simulator';

export { LAMBDA_SIM_TYPES, type LambdaControl } from './lambda-model';

/** Lambda's limit on `user_data`. */

export class LambdaSimulator extends ProviderSimulator<Account, LambdaControl> {
  protected readonly basePath = '/api/v1';
  private terminateDelay: number;
  /** `slug|region` or `slug|*`. */
  private readonly noCapacity = new Set<string>();
  private ipCounter = 0;
  /** First-boot scripts of `user_data` that carry a job's wrapper (./containers). */
  private readonly containers = new SimContainers({ docker: true });

  constructor(opts: SimulatorOptions = {}) {
    super(opts, {
      rateLimited: (retryAfter) => {
        const r = fail(
          429,
          'global/unknown',
          'Too many requests. Slow down and try again.',
          'Send at most one request per second.',
        );
        if (retryAfter !== null) r.headers = { 'retry-after': String(retryAfter) };
        return r;
      },
      serverError: (status) => fail(status, 'global/unknown', 'Something unexpected occurred.', 'Try again later.'),
      notFound: () => fail(404, 'global/object-does-not-exist', 'The requested resource does not exist.'),
      badJson: () => fail(400, 'global/invalid-parameters', 'Request body is not valid JSON.'),
    });
    this.terminateDelay = Math.max(50, Math.round(this.bootDelay / 2));
    for (const k of opts.keys ?? []) this.addKey(k);
    this.routes();
  }

  protected override onClose(): void {
    this.containers.stopAll();
  }

  protected newAccount(): Account {
    return { instances: new Map(), sshKeys: [] };
  }

  protected newKey(): string {
    return `secret_sim_${hex(32)}.${hex(32)}`;
  }

  protected instanceViews(key: string): SimInstanceView[] {
    const acct = this.accounts.get(key);
    if (!acct) return [];
    sweep(acct);
    return [...acct.instances.values()]
      .filter((i) => instanceStatus(i) !== 'terminated')
      .map((i) => instanceView(acct, i));
  }

  protected resetModes(): void {
    this.noCapacity.clear();
  }

  protected ownControl(): OwnControl<LambdaControl> {
    return {
      setTerminateDelay: (ms) => {
        this.terminateDelay = ms;
      },
      setNoCapacity: (gpu, on = true, opts = {}) => {
        const k = `${gpu}|${opts.region ?? '*'}`;
        if (on) this.noCapacity.add(k);
        else this.noCapacity.delete(k);
      },
      preempt: (key, id) => {
        const inst = this.accounts.get(key)?.instances.get(id);
        if (!inst) throw new Error(`no instance ${id} for that key`);
        // Lambda sells no interruptible instances: the one way it takes an instance away is ending it.
        if (inst.terminatedAt === null) {
          inst.terminatedAt = now();
          inst.terminateDelay = 0;
        }
        this.containers.remove(inst.id);
      },
      markUnhealthy: (key, id) => {
        const inst = this.accounts.get(key)?.instances.get(id);
        if (!inst) throw new Error(`no instance ${id} for that key`);
        inst.unhealthy = true;
      },
      sshKeys: (key) => (this.accounts.get(key)?.sshKeys ?? []).map((k) => ({ ...k })),
    };
  }

  private hasCapacity(type: TypeSeed, region: string): boolean {
    if (!type.regions.includes(region)) return false;
    const slug = slugFromLambda(type.name)?.slug ?? type.name;
    return !this.noCapacity.has(`${slug}|*`) && !this.noCapacity.has(`${slug}|${region}`);
  }

  private key(req: SimRequest): string | null {
    const h = req.headers.authorization?.trim();
    if (!h) return null;
    const bearer = /^Bearer\s+(.+)$/i.exec(h);
    if (bearer) return bearer[1]!.trim();
    const basic = /^Basic\s+(.+)$/i.exec(h);
    if (!basic) return null;
    const raw = basic[1]!.trim();
    if (this.accounts.has(raw)) return raw;
    const decoded = Buffer.from(raw, 'base64').toString('utf8');
    return decoded.endsWith(':') ? decoded.slice(0, -1) : decoded;
  }

  private authed(handler: (acct: Account, req: SimRequest) => SimResponse): (req: SimRequest) => SimResponse {
    return (req) => {
      const key = this.key(req);
      const acct = key ? this.accounts.get(key) : undefined;
      if (!acct)
        return fail(
          401,
          'global/invalid-api-key',
          'API key is invalid, expired, or deleted.',
          'Create a new API key and try again.',
        );
      sweep(acct);
      return handler(acct, req);
    };
  }

  private routes(): void {
    const r = this.server;
    const base = '/api/v1';
    r.route(
      'GET',
      `${base}/instance-types`,
      this.authed(() => {
        const data: Record<string, unknown> = {};
        for (const type of LAMBDA_SIM_TYPES) {
          data[type.name] = {
            instance_type: typeJson(type),
            regions_with_capacity_available: type.regions
              .filter((reg) => this.hasCapacity(type, reg))
              .map((reg) => ({ name: reg, description: REGIONS[reg] ?? reg })),
          };
        }
        return { status: 200, body: { data } };
      }),
    );
    r.route(
      'GET',
      `${base}/instances`,
      this.authed((a) => ({
        status: 200,
        body: { data: [...a.instances.values()].map((i) => instanceJson(i)) },
      })),
    );
    r.route(
      'GET',
      `${base}/instances/:id`,
      this.authed((a, req) => {
        const inst = a.instances.get(req.params.id!);
        return inst
          ? { status: 200, body: { data: instanceJson(inst) } }
          : fail(404, 'global/object-does-not-exist', 'Specified instance does not exist.');
      }),
    );
    r.route(
      'POST',
      `${base}/instance-operations/launch`,
      this.authed((a, req) => this.launch(a, req)),
    );
    r.route(
      'POST',
      `${base}/instance-operations/terminate`,
      this.authed((a, req) => this.terminate(a, req)),
    );
    r.route(
      'POST',
      `${base}/instance-operations/restart`,
      this.authed((a, req) => {
        const ids = this.instanceIds(a, req);
        if ('status' in ids) return ids;
        for (const i of ids.list) {
          // A reboot kills what ran; cloud-init does not run a first-boot script again.
          this.containers.stop(i.id);
          i.unhealthy = false;
          i.bootStart = now();
          i.bootDelay = this.bootDelay;
        }
        return { status: 200, body: { data: { restarted_instances: ids.list.map((i) => instanceJson(i)) } } };
      }),
    );
    r.route(
      'GET',
      `${base}/ssh-keys`,
      this.authed((a) => ({ status: 200, body: { data: a.sshKeys.map((k) => ({ ...k })) } })),
    );
    r.route(
      'POST',
      `${base}/ssh-keys`,
      this.authed((a, req) => this.addSshKey(a, req)),
    );
    r.route(
      'DELETE',
      `${base}/ssh-keys/:id`,
      this.authed((a, req) => {
        const n = a.sshKeys.findIndex((k) => k.id === req.params.id);
        if (n < 0) return fail(404, 'global/object-does-not-exist', 'Specified SSH key does not exist.');
        a.sshKeys.splice(n, 1);
        return { status: 200, body: {} };
      }),
    );
    r.route(
      'GET',
      `${base}/file-systems`,
      this.authed(() => ({ status: 200, body: { data: [] } })),
    );
  }

  private launch(acct: Account, req: SimRequest): SimResponse {
    const b = req.body;
    if (!b || typeof b !== 'object' || Array.isArray(b))
      return fail(400, 'global/invalid-parameters', 'Request body must be a JSON object.');
    const body = b as Record<string, unknown>;
    const fieldErrors = launchFieldErrors(acct, body);
    const keys = body.ssh_key_names;
    if (Object.keys(fieldErrors).length > 0) {
      return fail(
        400,
        'global/invalid-parameters',
        'Invalid request parameters.',
        'Check the field errors and try again.',
        fieldErrors,
      );
    }
    const type = LAMBDA_SIM_TYPES.find((x) => x.name === body.instance_type_name);
    if (!type) {
      return fail(
        404,
        'global/object-does-not-exist',
        `Instance type ${String(body.instance_type_name)} does not exist.`,
      );
    }
    const region = body.region_name as string;
    if (!this.hasCapacity(type, region)) {
      return fail(
        400,
        'instance-operations/launch/insufficient-capacity',
        'Not enough capacity to fulfill launch request.',
        'Choose an instance type with more availability, or try again later.',
      );
    }
    const tm = now();
    const inst: LambdaInst = {
      id: hex(32),
      name: typeof body.name === 'string' ? body.name : null,
      type,
      region,
      sshKeyNames: [...(keys as string[])],
      createdAt: tm,
      bootStart: tm,
      bootDelay: this.bootDelay,
      terminatedAt: null,
      terminateDelay: this.terminateDelay,
      unhealthy: false,
      ipIndex: this.ipCounter++,
      jupyterToken: hex(32),
    };
    acct.instances.set(inst.id, inst);
    // cloud-init runs a `#!` script once, at first boot; its end is not the VM's.
    const userData = typeof body.user_data === 'string' ? body.user_data : null;
    if (userData?.startsWith('#!')) this.containers.start(inst.id, userData, inst.bootDelay, () => undefined);
    return { status: 200, body: { data: { instance_ids: [inst.id] } } };
  }

  private instanceIds(acct: Account, req: SimRequest): { list: LambdaInst[] } | SimResponse {
    const b = req.body as Record<string, unknown> | undefined;
    const ids = b?.instance_ids;
    const extra = b && typeof b === 'object' ? Object.keys(b).filter((k) => k !== 'instance_ids') : [];
    if (!Array.isArray(ids) || ids.some((x) => typeof x !== 'string') || extra.length > 0) {
      return fail(400, 'global/invalid-parameters', 'instance_ids must be a list of instance IDs.');
    }
    const list: LambdaInst[] = [];
    for (const id of ids as string[]) {
      const inst = acct.instances.get(id);
      if (!inst) return fail(404, 'global/object-does-not-exist', `Specified instance ${id} does not exist.`);
      list.push(inst);
    }
    return { list };
  }

  private terminate(acct: Account, req: SimRequest): SimResponse {
    const ids = this.instanceIds(acct, req);
    if ('status' in ids) return ids;
    for (const i of ids.list) {
      if (i.terminatedAt === null) {
        i.terminatedAt = now();
        i.terminateDelay = this.terminateDelay;
      }
      this.containers.remove(i.id);
    }
    return { status: 200, body: { data: { terminated_instances: ids.list.map((i) => instanceJson(i)) } } };
  }

  private addSshKey(acct: Account, req: SimRequest): SimResponse {
    const b = req.body;
    if (!b || typeof b !== 'object' || Array.isArray(b))
      return fail(400, 'global/invalid-parameters', 'Request body must be a JSON object.');
    const body = b as Record<string, unknown>;
    const extra = Object.keys(body).filter((k) => k !== 'name' && k !== 'public_key');
    if (extra.length > 0) return fail(400, 'global/invalid-parameters', `Unknown parameter ${extra[0]}.`);
    if (typeof body.name !== 'string' || body.name.length < 1 || body.name.length > 64) {
      return fail(400, 'global/invalid-parameters', 'Name must be 1 to 64 characters.', undefined, {
        name: 'Invalid name.',
      });
    }
    if (acct.sshKeys.some((k) => k.name === body.name)) {
      return fail(
        400,
        'global/invalid-parameters',
        `An SSH key named ${body.name} already exists.`,
        'Choose a different name.',
      );
    }
    let privateKey: string | undefined;
    let publicKey: string;
    if (body.public_key === undefined) {
      const publicBody = Buffer.from(hex(32), 'hex').toString('base64').replace(/=+$/, '');
      const privateBody = Buffer.from(hex(64), 'hex').toString('base64');
      publicKey = `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA${publicBody} ${body.name}`;
      privateKey = `-----BEGIN OPENSSH PRIVATE KEY-----\n${privateBody}\n-----END OPENSSH PRIVATE KEY-----\n`;
    } else if (
      typeof body.public_key !== 'string' ||
      body.public_key.length > 4096 ||
      !SSH_KEY_LINE.test(body.public_key.trim())
    ) {
      return fail(400, 'global/invalid-parameters', 'Invalid public key.', undefined, {
        public_key: 'Not a valid SSH public key.',
      });
    } else {
      publicKey = body.public_key.trim();
    }
    const key = { id: hex(32), name: body.name, public_key: publicKey };
    acct.sshKeys.push(key);
    return { status: 200, body: { data: privateKey ? { ...key, private_key: privateKey } : { ...key } } };
  }
}
