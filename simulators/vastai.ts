/**
 * Vast.ai simulator (`openapi/vastai.yaml`): offer search, create on an ask, instance list (v1, paged) and show
 * (v0), manage/destroy, account and instance SSH keys, the current user. Errors are `{success:false,error,msg}`,
 * 429s carry no Retry-After, state is per API key.
 *
 * `actual_status` goes null → loading → running over the boot delay (null for the first third). `state:"stopped"`
 * stops at once. Offers are a fixed, deterministic marketplace; renting does not use them up. A preempted
 * interruptible instance goes to `stopped` (or `exited`) while its intended status stays `running`, or vanishes.
 */
import { slugFromVast } from '../src/providers/gpu-catalog';
import {
  bearerKey,
  now,
  randomChars,
  type SimInstanceView,
  type SimRequest,
  type SimResponse,
  type SimulatorOptions,
} from './kit';
import {
  type Account,
  err,
  type Offer,
  parseEnv,
  VAST_SIM_OFFERS,
  type VastControl,
  type VastInst,
} from './vastai-model';
import { actualStatus, instanceV0 } from './vastai-instances';
import { listInstancesV1 } from './vastai-instance-list';
import { searchOffers } from './vastai-offers';
import { type OwnControl, ProviderSimulator } from './provider-simulator';
import { SimContainers } from './containers';
import { VastLogUploads } from './sim-logs';

export { VAST_SIM_OFFERS, type VastControl } from './vastai-model';

export class VastSimulator extends ProviderSimulator<Account, VastControl> {
  protected readonly basePath = '';
  private readonly noCapacity = new Map<string, 'hidden' | 'unavailable'>();
  /**
   * Ids continue from the clock, in milliseconds since 2025: a restarted simulator never hands out an id an
   * earlier run did (that would take more than one create per millisecond, sustained), so rows recorded
   * against an earlier run never collide with new instances.
   */
  private nextInstanceId = Date.now() - Date.UTC(2025, 0, 1);
  private nextSshKeyId = Math.floor((Date.now() - Date.UTC(2025, 0, 1)) / 1000);
  private nextUserId = 310_000;

  constructor(opts: SimulatorOptions = {}) {
    super(opts, {
      rateLimited: () => ({ status: 429, body: { detail: 'API requests too frequent endpoint threshold=4.5' } }),
      serverError: (status) => err(status, 'server_error', 'Internal server error, please try again later'),
      notFound: (path) => err(404, 'not_found', `No endpoint ${path}`),
      badJson: () => err(400, 'invalid_request', 'Invalid json body'),
    });
    for (const k of opts.keys ?? []) this.addKey(k);
    this.routes();
  }

  protected newAccount(): Account {
    const userId = this.nextUserId++;
    return { userId, email: `user${userId}@example.com`, instances: new Map(), sshKeys: [] };
  }

  /** Job containers (./containers): run while their instance runs. */
  private readonly containers = new SimContainers();
  /** `request_logs` snapshots, served at their `result_url` after `control.setLogDelay`. */
  private readonly logUploads = new VastLogUploads();

  protected override onClose(): void {
    this.containers.stopAll();
  }

  protected newKey(): string {
    return randomChars('0123456789abcdef', 64);
  }

  protected instanceViews(key: string): SimInstanceView[] {
    return [...(this.accounts.get(key)?.instances.values() ?? [])].map((i) => this.view(i));
  }

  protected resetModes(): void {
    this.noCapacity.clear();
  }

  protected ownControl(): OwnControl<VastControl> {
    return {
      setNoCapacity: (gpu, on = true, opts = {}) => {
        if (on) this.noCapacity.set(gpu, opts.mode ?? 'hidden');
        else this.noCapacity.delete(gpu);
      },
      preempt: (key, id, how = 'stopped') => {
        const acct = this.accounts.get(key);
        const inst = acct?.instances.get(Number(id));
        if (!acct || !inst) throw new Error(`no instance ${id} for that key`);
        if (!['stopped', 'exited', 'remove'].includes(how)) throw new Error(`how must be stopped, exited or remove`);
        // A removed instance takes its log with it; a stopped or exited one keeps it.
        this.containers[how === 'remove' ? 'remove' : 'stop'](String(inst.id));
        if (how === 'remove') acct.instances.delete(inst.id);
        else inst.phase = how;
      },
      setUtilization: (key, id, percent) => {
        const inst = this.accounts.get(key)?.instances.get(Number(id));
        if (!inst) throw new Error(`no instance ${id} for that key`);
        inst.gpuUtil = percent;
      },
      sshKeys: (key) => (this.accounts.get(key)?.sshKeys ?? []).map((k) => k.key),
      setLogDelay: (ms) => {
        this.logUploads.delayMs = ms;
      },
    };
  }

  private view(i: VastInst): SimInstanceView {
    return {
      id: String(i.id),
      name: i.label,
      status: actualStatus(i),
      gpu: i.offer.seed.gpu,
      gpuCount: i.offer.numGpus,
      spot: i.isBid,
      region: i.offer.geolocation,
      image: i.image,
      env: Object.fromEntries(i.env),
      sshKeys: [...i.sshKeys],
      createdAt: new Date(i.createdAt).toISOString(),
    };
  }

  private capacityMode(o: Offer): 'hidden' | 'unavailable' | undefined {
    const slug = slugFromVast(o.seed.gpu, o.seed.ramMb);
    return (slug ? this.noCapacity.get(slug) : undefined) ?? this.noCapacity.get(o.seed.gpu);
  }

  private key(req: SimRequest): string | null {
    return bearerKey(req.headers) ?? req.query.get('api_key');
  }

  private authed(handler: (acct: Account, req: SimRequest) => SimResponse): (req: SimRequest) => SimResponse {
    return (req) => {
      const key = this.key(req);
      const acct = key ? this.accounts.get(key) : undefined;
      return acct ? handler(acct, req) : err(401, 'auth_error', 'Invalid user key');
    };
  }

  private routes(): void {
    const r = this.server;
    r.route('POST', '/api/v0/bundles', (req) => {
      // Offer search works without a key (as gpuhunt uses it); a key that is sent must be valid.
      const key = this.key(req);
      if (key && !this.accounts.has(key)) return err(401, 'auth_error', 'Invalid user key');
      return searchOffers(req.body, (o) => this.capacityMode(o) === 'hidden');
    });
    r.route(
      'PUT',
      '/api/v0/asks/:id',
      this.authed((a, req) => this.create(a, req)),
    );
    r.route(
      'GET',
      '/api/v1/instances',
      this.authed((a, req) => listInstancesV1(a, req)),
    );
    r.route(
      'GET',
      '/api/v0/instances',
      this.authed((a) => {
        const list = [...a.instances.values()].map((i) => instanceV0(i));
        return { status: 200, body: { instances_found: list.length, instances: list } };
      }),
    );
    r.route(
      'GET',
      '/api/v0/instances/:id',
      this.authed((a, req) => {
        if (!/^\d+$/.test(req.params.id!)) return err(400, 'invalid_args', 'invalid instance_id');
        const inst = a.instances.get(Number(req.params.id));
        return { status: 200, body: { instances: inst ? instanceV0(inst) : null } };
      }),
    );
    r.route(
      'PUT',
      '/api/v0/instances/:id',
      this.authed((a, req) => this.manage(a, req)),
    );
    r.route(
      'DELETE',
      '/api/v0/instances/:id',
      this.authed((a, req) => {
        if (!/^\d+$/.test(req.params.id!)) return err(400, 'invalid_args', 'invalid instance_id');
        if (!a.instances.delete(Number(req.params.id))) return err(404, 'not_found', 'Instance not found');
        this.containers.remove(req.params.id!);
        return { status: 200, body: { success: true, msg: 'Instance destroyed successfully' } };
      }),
    );
    const logs = this.logUploads;
    r.route(
      'PUT',
      '/api/v0/instances/request_logs/:id',
      this.authed((a, req) => logs.request(a, this.containers, req)),
    );
    r.route('GET', '/instance_logs/:name', (req) => this.logUploads.fetch(req.params.name!));
    r.route(
      'POST',
      '/api/v0/instances/:id/ssh',
      this.authed((a, req) => {
        const inst = /^\d+$/.test(req.params.id!) ? a.instances.get(Number(req.params.id)) : undefined;
        if (!inst) return err(404, 'not_found', 'Instance not found');
        const key = (req.body as { ssh_key?: unknown } | undefined)?.ssh_key;
        if (typeof key !== 'string' || key.trim() === '') return err(400, 'no_ssh_key', 'No ssh key provided');
        if (!inst.sshKeys.includes(key.trim())) inst.sshKeys.push(key.trim());
        return { status: 200, body: { success: true, msg: 'SSH key attached successfully' } };
      }),
    );
    r.route(
      'GET',
      '/api/v0/instances/:id/ssh',
      this.authed((a, req) => {
        const inst = /^\d+$/.test(req.params.id!) ? a.instances.get(Number(req.params.id)) : undefined;
        if (!inst) return err(404, 'not_found', 'Instance not found');
        return {
          status: 200,
          body: { success: true, ssh_keys: inst.sshKeys.map((k, n) => ({ id: n + 1, public_key: k })) },
        };
      }),
    );
    r.route(
      'POST',
      '/api/v0/ssh',
      this.authed((a, req) => {
        const key = (req.body as { ssh_key?: unknown } | undefined)?.ssh_key;
        if (typeof key !== 'string' || key.trim() === '') return err(400, 'no_ssh_key', 'No ssh key provided');
        const entry = { id: this.nextSshKeyId++, key: key.trim(), createdAt: new Date(now()).toISOString() };
        a.sshKeys.push(entry);
        // Vast pushes account keys to the account's current instances.
        for (const inst of a.instances.values()) if (!inst.sshKeys.includes(entry.key)) inst.sshKeys.push(entry.key);
        return {
          status: 200,
          body: {
            success: true,
            key: {
              id: entry.id,
              user_id: a.userId,
              public_key: entry.key,
              created_at: entry.createdAt,
              deleted_at: null,
            },
          },
        };
      }),
    );
    r.route(
      'GET',
      '/api/v0/ssh',
      this.authed((a) => ({
        status: 200,
        body: a.sshKeys.map((k) => ({
          id: k.id,
          user_id: a.userId,
          key: k.key,
          created_at: k.createdAt,
          deleted_at: null,
        })),
      })),
    );
    r.route(
      'DELETE',
      '/api/v0/ssh/:id',
      this.authed((a, req) => {
        const n = a.sshKeys.findIndex((k) => String(k.id) === req.params.id);
        if (n < 0) return err(400, 'invalid_args', 'ssh key not found');
        a.sshKeys.splice(n, 1);
        return { status: 200, body: { success: true } };
      }),
    );
    r.route(
      'GET',
      '/api/v0/users/current',
      this.authed((a) => ({
        status: 200,
        body: {
          id: a.userId,
          key_id: a.userId * 10 + 1,
          email: a.email,
          balance: 25.0,
          ssh_key: a.sshKeys.map((k) => k.key).join('\n'),
          sid: `sim${a.userId}`,
        },
      })),
    );
  }

  private create(acct: Account, req: SimRequest): SimResponse {
    const askId = Number(req.params.id);
    const offer = Number.isInteger(askId) ? VAST_SIM_OFFERS.find((o) => o.id === askId) : undefined;
    const b = (req.body ?? {}) as Record<string, unknown>;
    if (!offer) {
      return err(
        404,
        'invalid_args',
        `error 404/3603: no_such_ask Instance type by id ${req.params.id} is not available.`,
        { ask_id: askId },
      );
    }
    if (this.capacityMode(offer)) {
      return b.cancel_unavail === true
        ? err(410, 'no_such_ask', `error 410/3907: no_such_ask Instance type ${askId} is no longer available.`, {
            ask_id: askId,
          })
        : err(404, 'invalid_args', `error 404/3603: no_such_ask Instance type by id ${askId} is not available.`, {
            ask_id: askId,
          });
    }
    if (typeof b.image !== 'string' && typeof b.template_hash_id !== 'string') {
      return err(400, 'invalid_args', "error 400/3467: Invalid args: 'image' is required", { ask_id: askId });
    }
    let price = offer.dphTotal;
    let isBid = false;
    if (b.price !== undefined && b.price !== null) {
      if (typeof b.price !== 'number' || b.price < 0.001 || b.price > 128) {
        return err(400, 'invalid_price', 'error 400/3211: price must be a number between 0.001 and 128', {
          ask_id: askId,
        });
      }
      if (b.price < offer.minBid) {
        return err(
          400,
          'invalid_price',
          `error 400/3212: Your bid price of ${b.price} is below the minimum bid price of ${offer.minBid}`,
          {
            ask_id: askId,
          },
        );
      }
      price = b.price;
      isBid = true;
    }
    if (b.disk !== undefined && (typeof b.disk !== 'number' || b.disk <= 0)) {
      return err(400, 'invalid_args', 'error 400/3467: Invalid args: disk must be a positive number', {
        ask_id: askId,
      });
    }
    const t = now();
    const id = this.nextInstanceId++;
    const inst: VastInst = {
      id,
      label: typeof b.label === 'string' ? b.label : null,
      offer,
      image: (b.image as string | undefined) ?? 'vastai/base-image:@vastai-automatic-tag',
      disk: (b.disk as number | undefined) ?? 10,
      onstart: typeof b.onstart === 'string' ? b.onstart : null,
      env: parseEnv(b.env),
      isBid,
      price,
      runtype: typeof b.runtype === 'string' ? b.runtype : 'ssh',
      createdAt: t,
      bootStart: t,
      bootDelay: this.bootDelay,
      phase: b.target_state === 'stopped' ? 'stopped' : 'booting',
      intended: b.target_state === 'stopped' ? 'stopped' : 'running',
      sshKeys: acct.sshKeys.map((k) => k.key),
      sshPort: 10_000 + (id % 50_000),
      jupyterToken: randomChars('0123456789abcdef', 64),
    };
    acct.instances.set(id, inst);
    // A job's container runs once booted; its exit leaves the instance `exited`.
    if (inst.phase === 'booting')
      this.containers.start(String(id), inst.onstart, inst.bootDelay, () => (inst.phase = 'exited'));
    return { status: 200, body: { success: true, new_contract: id } };
  }

  private manage(acct: Account, req: SimRequest): SimResponse {
    if (!/^\d+$/.test(req.params.id!)) return err(400, 'invalid_args', 'invalid instance_id');
    const inst = acct.instances.get(Number(req.params.id));
    if (!inst) return err(404, 'not_found', 'Instance not found');
    const b = (req.body ?? {}) as Record<string, unknown>;
    if (b.state === undefined && b.label === undefined)
      return err(400, 'invalid_args', 'one of state or label is required');
    if (b.state !== undefined && b.state !== 'running' && b.state !== 'stopped')
      return err(400, 'invalid_args', `invalid state ${String(b.state)}`);
    if (b.label !== undefined) {
      if (typeof b.label !== 'string' || b.label.length > 1024) return err(400, 'invalid_args', 'invalid label');
      inst.label = b.label;
    }
    if (b.state === 'stopped') {
      inst.phase = 'stopped';
      inst.intended = 'stopped';
    } else if (b.state === 'running' && inst.phase !== 'booting') {
      inst.phase = 'booting';
      inst.intended = 'running';
      inst.bootStart = now();
      inst.bootDelay = this.bootDelay;
    }
    return { status: 200, body: { success: true } };
  }
}
