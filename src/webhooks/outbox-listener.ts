/**
 * LISTEN on `events_outbox` (a trigger notifies on every insert into `events`) and wake the webhook dispatcher.
 * Signals are coalesced: at most one in flight, one more queued, however fast events arrive. A lost
 * connection is re-opened; the dispatcher's periodic tick covers the gap (nothing is lost, only later).
 */
import { Client } from 'pg';
import type { Logger } from '../logger';

export const OUTBOX_CHANNEL = 'events_outbox';

export class OutboxListener {
  private client: Client | undefined;
  private stopped = false;
  private sending = false;
  private queued = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly wake: () => Promise<void>,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    const client = new Client({ connectionString: this.databaseUrl });
    client.on('notification', () => this.kick());
    client.on('error', (err) => {
      this.logger.warn('outbox listener lost its connection; the dispatcher tick covers until it reconnects', { err });
      this.client = undefined;
      void client.end().catch(() => undefined);
      if (!this.stopped) setTimeout(() => void this.start().catch(() => undefined), 2_000).unref();
    });
    await client.connect();
    await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
    this.client = client;
    this.kick(); // events may have landed while nobody listened
  }

  /** Sends one wake-up, or queues one behind the signal in flight. */
  kick(): void {
    if (this.sending) {
      this.queued = true;
      return;
    }
    this.sending = true;
    void this.wake()
      .catch((err) => this.logger.warn('could not wake the webhook dispatcher', { err }))
      .finally(() => {
        this.sending = false;
        if (this.queued && !this.stopped) {
          this.queued = false;
          this.kick();
        }
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.client?.end().catch(() => undefined);
  }
}
