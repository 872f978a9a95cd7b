/**
 * API key scopes: one per resource family and verb. Every GET needs `read`; a write needs its family's scope.
 * The key `account:create` prints (and every key made before scopes existed) holds all of them.
 */
export const SCOPES = [
  'read',
  'compute:write',
  'schedules:write',
  'alerts:write',
  'webhooks:write',
  'billing:write',
  'settings:write',
  'keys:admin',
] as const;
export type Scope = (typeof SCOPES)[number];

/** Path prefix → the scope its writes need, longest prefix first. */
const WRITE_SCOPES: readonly [prefix: string, scope: Scope][] = [
  ['/v1/compute', 'compute:write'],
  ['/v1/schedules', 'schedules:write'],
  ['/v1/alerts', 'alerts:write'],
  ['/v1/webhooks', 'webhooks:write'],
  ['/v1/events', 'webhooks:write'],
  ['/v1/billing', 'billing:write'],
  ['/v1/settings', 'settings:write'],
  ['/v1/ssh-keys', 'settings:write'],
  ['/v1/api-keys', 'keys:admin'],
];

/**
 * The scope an operation needs: `read` for GET, else the family's write scope. A family this table does not
 * know needs `keys:admin` (the widest), so a new route is never open to a narrower key by accident.
 */
export function scopeForOperation(method: string, path: string): Scope {
  if (method.toLowerCase() === 'get') return 'read';
  const found = WRITE_SCOPES.find(([prefix]) => path === prefix || path.startsWith(`${prefix}/`));
  return found ? found[1] : 'keys:admin';
}

/** The scopes in `wanted` that `held` does not include. */
export function missingScopes(held: readonly string[], wanted: readonly string[]): string[] {
  return wanted.filter((s) => !held.includes(s));
}
