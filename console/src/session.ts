/**
 * The signed-in key lives in sessionStorage: it survives a reload of this tab and is gone when the browser
 * session ends. It is never written to localStorage, a cookie or a URL.
 */
const KEY = 'gpuo.session';

export function loadKey(): string | null {
  return sessionStorage.getItem(KEY);
}

export function saveKey(key: string): void {
  sessionStorage.setItem(KEY, key);
}

export function clearKey(): void {
  sessionStorage.removeItem(KEY);
}
