/** Path routing under /console with the History API (Stripe returns to /console/checkout/success). */
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/console';

export function currentRoute(): { path: string; params: URLSearchParams } {
  const p = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : '/';
  return {
    path: p === '' || p === '/' ? '/fleet' : p.replace(/\/+$/, ''),
    params: new URLSearchParams(location.search),
  };
}

export function navigate(path: string): void {
  history.pushState(null, '', `${BASE}${path}`);
  dispatchEvent(new PopStateEvent('popstate'));
}

export function useRoute(): ReturnType<typeof currentRoute> {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const on = () => setRoute(currentRoute());
    addEventListener('popstate', on);
    return () => removeEventListener('popstate', on);
  }, []);
  return route;
}
