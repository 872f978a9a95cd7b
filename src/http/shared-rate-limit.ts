/**
 * Rate limits shared by every API process, without a database round trip per request: fixed one-minute
 * windows per key, counted in Postgres (`rate_limit_windows`), where each process reserves a block of
 * requests at a time (an eighth of what the window has left) and spends it in memory. The store never grants
 * past the limit, so the requests accepted by all processes together stay within it; the price is that a
 * block one process reserved and did not spend is lost to the others for that window (under-, never
 * over-acceptance). A refusal costs nothing once this process knows the window is spent.
 *
 * Without a store (or while it cannot be reached) each process keeps its own count: the limit then holds per
 * process, which is what it did before it was shared.
 */
import type { RateLimitStore } from '../db/queries/rate-limits';

interface WindowState {
  windowStart: number;
  /** Requests this process may still accept in the window without asking the store. */
  allowance: number;
  /** The window's count in the store as of this process's last reservation. */
  known: number;
  /** The store granted nothing: refuse locally until the window ends. */
  spent: boolean;
  asking?: Promise<void>;
}

/** Share of what a window has left that one reservation takes. */
const BLOCK_DIVISOR = 8;
/** Past this many tracked keys, the states of ended windows are dropped. */
const MAX_TRACKED_KEYS = 100_000;

export class SharedWindowLimits {
  private readonly states = new Map<string, WindowState>();
  private lastCleanupWindow = 0;

  constructor(
    private readonly store: RateLimitStore | null,
    private readonly options: { windowMs?: number; now?: () => number; onStoreError?: (err: unknown) => void } = {},
  ) {}

  private get windowMs(): number {
    return this.options.windowMs ?? 60_000;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** Seconds until the current window ends (for Retry-After). */
  retryAfterSeconds(): number {
    const now = this.now();
    return (this.windowMs - (now % this.windowMs)) / 1000;
  }

  /**
   * Takes one request for `key` under `max` per window: true when accepted. Answers synchronously while this
   * process holds an allowance or knows the window is spent; otherwise after one reservation.
   */
  take(key: string, max: number): boolean | Promise<boolean> {
    const state = this.state(key);
    if (state.allowance > 0) {
      state.allowance--;
      return true;
    }
    if (state.spent || max <= 0) return false;
    return this.takeReserving(key, state, max);
  }

  /** Reserves until this request gets a place or the store has none left (waiters share each reservation). */
  private async takeReserving(key: string, state: WindowState, max: number): Promise<boolean> {
    while (!state.spent) {
      await this.reserve(key, state, max);
      if (state.allowance > 0) {
        state.allowance--;
        return true;
      }
    }
    return false;
  }

  /** Whether the key's window is known to be spent here (no store call). */
  isSpent(key: string): boolean {
    const state = this.states.get(key);
    return state !== undefined && state.windowStart === this.windowStart() && state.spent && state.allowance <= 0;
  }

  private windowStart(): number {
    const now = this.now();
    return now - (now % this.windowMs);
  }

  private state(key: string): WindowState {
    const windowStart = this.windowStart();
    let state = this.states.get(key);
    if (!state || state.windowStart !== windowStart) {
      state = { windowStart, allowance: 0, known: 0, spent: false };
      this.states.set(key, state);
      if (this.states.size > MAX_TRACKED_KEYS) this.forgetEndedWindows(windowStart);
    }
    return state;
  }

  /** One reservation at a time per key: concurrent requests wait for the same one. */
  private reserve(key: string, state: WindowState, max: number): Promise<void> {
    state.asking ??= this.ask(key, state, max).finally(() => {
      state.asking = undefined;
    });
    return state.asking;
  }

  private async ask(key: string, state: WindowState, max: number): Promise<void> {
    const want = Math.max(1, Math.ceil((max - state.known) / BLOCK_DIVISOR));
    if (!this.store) {
      this.grant(
        state,
        Math.max(0, Math.min(want, max - state.known)),
        state.known + Math.max(0, Math.min(want, max - state.known)),
      );
      return;
    }
    try {
      const [granted] = await this.store.reserve(state.windowStart, [{ key, want, max }]);
      this.grant(state, granted?.granted ?? 0, granted?.total ?? max);
      this.cleanup(state.windowStart);
    } catch (err) {
      // The store is away: keep a count of this process's own (the limit holds per process meanwhile).
      this.options.onStoreError?.(err);
      const local = Math.max(0, Math.min(want, max - state.known));
      this.grant(state, local, state.known + local);
    }
  }

  private grant(state: WindowState, granted: number, total: number): void {
    state.allowance += granted;
    state.known = total;
    if (granted === 0) state.spent = true;
  }

  /** Once per window, the store forgets the windows before the previous one (fire and forget). */
  private cleanup(windowStart: number): void {
    if (!this.store || this.lastCleanupWindow === windowStart) return;
    this.lastCleanupWindow = windowStart;
    this.store.forgetWindowsBefore(windowStart - this.windowMs).catch((err) => this.options.onStoreError?.(err));
  }

  private forgetEndedWindows(windowStart: number): void {
    for (const [key, state] of this.states) if (state.windowStart !== windowStart) this.states.delete(key);
  }
}
