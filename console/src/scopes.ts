/**
 * What the signed-in key may do (GET /v1/api-keys/current). Actions the key's scopes do not cover are shown
 * disabled, with the missing scope in their title: a read-only key sees everything and can change nothing.
 */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

export type Scope =
  | 'read'
  | 'compute:write'
  | 'schedules:write'
  | 'alerts:write'
  | 'webhooks:write'
  | 'billing:write'
  | 'settings:write'
  | 'keys:admin';

export const ScopesContext = createContext<ReadonlySet<string>>(new Set());

/** `allowed(scope)`: whether the key holds it; `why(scope)`: the title of a disabled action. */
export function useScopes() {
  const held = useContext(ScopesContext);
  return {
    allowed: (scope: Scope) => held.has(scope),
    why: (scope: Scope) => (held.has(scope) ? undefined : `This API key lacks the "${scope}" scope.`),
  };
}
