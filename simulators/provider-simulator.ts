/**
 * What the three provider simulators share around their own API: the HTTP server, the per-key accounts, the
 * boot delay new instances get, the handle `start` returns, and the control knobs every one of them has, also
 * served over HTTP under `/_sim` (./control-routes).
 */
import {
  DEFAULT_BOOT_DELAY_MS,
  SimServer,
  type CommonControl,
  type FaultControl,
  type FaultResponses,
  type SimHandle,
  type SimInstanceView,
  type SimulatorOptions,
} from './kit';
import { serveControl } from './control-routes';

/** The knobs a simulator adds to the shared ones (its capacity switch among them). */
export type OwnControl<C extends CommonControl> = Omit<
  C,
  keyof FaultControl | 'setBootDelay' | 'instances' | 'addKey' | 'reset'
>;

export abstract class ProviderSimulator<A, C extends CommonControl> {
  protected readonly accounts = new Map<string, A>();
  /** Milliseconds from create (or start) to running, for instances created or started from now on. */
  protected bootDelay: number;
  readonly server: SimServer;

  constructor(opts: SimulatorOptions, faults: FaultResponses) {
    this.bootDelay = opts.bootDelayMs ?? DEFAULT_BOOT_DELAY_MS;
    this.server = new SimServer(faults, opts.recordLimit);
  }

  /** What the adapter's base URL adds to the server's origin ('' for nothing). */
  protected abstract readonly basePath: string;
  /** A new API key, shaped like the provider's. */
  protected abstract newKey(): string;
  /** A new key's empty state. */
  protected abstract newAccount(): A;
  /** The key's instances as the provider would list them (terminated ones are gone). */
  protected abstract instanceViews(key: string): SimInstanceView[];
  /** The provider's own knobs. */
  protected abstract ownControl(): OwnControl<C>;
  /** Clears the provider's own capacity switches and modes (`reset` clears the faults besides). */
  protected abstract resetModes(): void;

  addKey(key: string): void {
    if (!this.accounts.has(key)) this.accounts.set(key, this.newAccount());
  }

  createKey(): string {
    const key = this.newKey();
    this.addKey(key);
    return key;
  }

  async start(host: string, port: number): Promise<SimHandle<C>> {
    const control = this.control();
    serveControl(this.server, { control, keys: () => this.accounts.keys() });
    const origin = await this.server.listen(host, port);
    const close = () => {
      this.onClose();
      return this.server.close();
    };
    return { baseUrl: `${origin}${this.basePath}`, createKey: () => this.createKey(), control, close };
  }

  /** What the simulator ends besides its server when it closes (its job containers). */
  protected onClose(): void {}

  private control(): C {
    const shared: Omit<CommonControl, 'setNoCapacity' | 'preempt'> = {
      ...this.server.faultControl(),
      setBootDelay: (ms) => {
        this.bootDelay = ms;
      },
      instances: (key) => this.instanceViews(key),
      addKey: (key) => this.addKey(key),
      reset: () => {
        this.server.resetFaults();
        this.resetModes();
      },
    };
    return { ...shared, ...this.ownControl() } as C;
  }
}
