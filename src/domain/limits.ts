/**
 * Per-account bounds on what one service key can make us hold or do: how many alerts, schedules, webhook
 * endpoints (and distinct destination URLs), SSH keys and live instances an account may have. The values are
 * settings (LIMIT_*); every account gets the same ones.
 */

export const LIMIT_NAMES = [
  'alerts',
  'schedules',
  'webhooks',
  'webhook_urls',
  'ssh_keys',
  'live_instances',
  'api_keys',
] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];
export type AccountLimits = Readonly<Record<LimitName, number>>;

/** Defaults: generous for real use, small enough that one key cannot turn us into an amplifier. */
export const DEFAULT_LIMITS: AccountLimits = Object.freeze({
  alerts: 100,
  schedules: 20,
  webhooks: 20,
  webhook_urls: 10,
  ssh_keys: 50,
  live_instances: 20,
  api_keys: 50,
});

/** What each limit counts, and where it is enforced (GET /v1/limits and the docs say the same). */
export const LIMIT_DESCRIPTIONS: Readonly<Record<LimitName, string>> = Object.freeze({
  alerts: 'alerts, active or triggered (POST /v1/alerts)',
  schedules: 'schedules not deleted, active or paused (POST /v1/schedules)',
  webhooks: 'webhook endpoints, active or not (POST /v1/webhooks)',
  webhook_urls:
    'distinct destination URLs among the webhook endpoints (POST /v1/webhooks, PUT /v1/webhooks/{id} with a new url)',
  ssh_keys: 'SSH keys (POST /v1/ssh-keys)',
  live_instances:
    'managed instances not yet stopped, terminated or failed (POST /v1/compute/launch and scheduled runs)',
  api_keys: 'API keys not revoked (POST /v1/api-keys)',
});

/** Instance statuses that count as live: the instance runs or is on its way up or down. */
export const LIVE_INSTANCE_STATUSES = ['provisioning', 'running', 'stopping', 'terminating', 'unknown'] as const;

/** The refusal text: names the limit, the number and the way out. */
export function limitReachedMessage(name: LimitName, limit: number): string {
  const what =
    name === 'webhook_urls'
      ? 'distinct webhook URLs'
      : name === 'live_instances'
        ? 'live instances'
        : name === 'api_keys'
          ? 'API keys'
          : name.replace('_', ' ');
  return (
    `This account has reached its limit of ${limit} ${what} (limit "${name}"); remove one first. ` +
    'GET /v1/limits lists every limit with its use.'
  );
}
