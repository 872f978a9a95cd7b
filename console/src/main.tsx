/** The console: sign in with an API key, then every page of the account (fleet, jobs, prices, spend, …). */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, createApi, type Api } from './api';
import { clearKey, loadKey, saveKey } from './session';
import { navigate, useRoute } from './router';
import { FleetPage } from './pages/fleet';
import { PricesPage } from './pages/prices';
import { SpendPage } from './pages/spend';
import { CheckoutResultPage } from './pages/checkout';
import { AlertsPage, EventsPage } from './pages/activity';
import { SchedulesPage } from './pages/schedules';
import { SettingsPage } from './pages/settings';
import { WebhooksPage } from './pages/webhooks';
import { LaunchPage } from './pages/launch';
import { EndedInstancesPage, InstancePage } from './pages/instance';
import { JobsPage } from './pages/jobs';
import { JobPage } from './pages/job';
import { RunJobPage } from './pages/run-job';
import { ErrorNotice, useAction } from './ui';
import { ScopesContext } from './scopes';
import './styles.css';

const PAGES: { path: string; title: string }[] = [
  { path: '/fleet', title: 'Fleet' },
  { path: '/launch', title: 'Launch' },
  { path: '/jobs', title: 'Jobs' },
  { path: '/prices', title: 'Prices' },
  { path: '/spend', title: 'Spend' },
  { path: '/alerts', title: 'Alerts' },
  { path: '/schedules', title: 'Schedules' },
  { path: '/webhooks', title: 'Webhooks' },
  { path: '/events', title: 'Events' },
  { path: '/settings', title: 'Settings' },
];

/** The nav entry a path belongs to: an instance under the fleet, a job under jobs. */
function section(path: string): string {
  if (path.startsWith('/instances')) return '/fleet';
  if (path.startsWith('/jobs')) return '/jobs';
  return path;
}

function SignIn({ onSignedIn }: { onSignedIn: (api: Api) => void }) {
  const [key, setKey] = useState('');
  const { busy, error, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const api = createApi(key.trim());
      await api.balance();
      saveKey(key.trim());
      onSignedIn(api);
    });
  };
  return (
    <main class="signin" id="main">
      <h1>GPU Orchestrator</h1>
      <form onSubmit={submit} autocomplete="off">
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          required
          value={key}
          placeholder="gpuo_sk_…"
          onInput={(e) => setKey((e.target as HTMLInputElement).value)}
        />
        <p class="hint">
          The key stays in this browser tab's session only. <code>npm start</code> prints a demo key.
        </p>
        <button type="submit" disabled={busy || !key.trim()}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      {error ? <ErrorNotice error={error} /> : null}
    </main>
  );
}

function App() {
  const route = useRoute();
  const [api, setApi] = useState<Api | null>(() => {
    const key = loadKey();
    return key ? createApi(key) : null;
  });
  const [scopes, setScopes] = useState<ReadonlySet<string> | null>(null);
  useEffect(() => {
    setScopes(null);
    api?.currentKey().then(
      (k) => setScopes(new Set(k.scopes)),
      () => setScopes(new Set(['read'])),
    );
  }, [api]);
  const signOut = () => {
    clearKey();
    setApi(null);
  };
  if (!api) return <SignIn onSignedIn={setApi} />;
  const onAuthError = (err: unknown) => {
    if (err instanceof ApiError && err.status === 401) signOut();
  };
  let page;
  if (route.path === '/fleet') page = <FleetPage api={api} onAuthError={onAuthError} />;
  else if (route.path === '/prices') page = <PricesPage api={api} />;
  else if (route.path === '/spend') page = <SpendPage api={api} onAuthError={onAuthError} />;
  else if (route.path === '/launch') page = <LaunchPage api={api} />;
  else if (route.path === '/alerts') page = <AlertsPage api={api} />;
  else if (route.path === '/schedules') page = <SchedulesPage api={api} />;
  else if (route.path === '/webhooks') page = <WebhooksPage api={api} />;
  else if (route.path === '/events') page = <EventsPage api={api} />;
  else if (route.path === '/settings') page = <SettingsPage api={api} />;
  else if (route.path === '/instances') page = <EndedInstancesPage api={api} />;
  else if (route.path.startsWith('/instances/'))
    page = <InstancePage api={api} id={decodeURIComponent(route.path.slice('/instances/'.length))} />;
  else if (route.path === '/jobs') page = <JobsPage api={api} />;
  else if (route.path === '/jobs/new') page = <RunJobPage api={api} />;
  else if (route.path.startsWith('/jobs/'))
    page = <JobPage api={api} id={decodeURIComponent(route.path.slice('/jobs/'.length))} />;
  else if (route.path === '/checkout/success' || route.path === '/checkout/cancel')
    page = (
      <CheckoutResultPage
        api={api}
        outcome={route.path.endsWith('success') ? 'success' : 'cancel'}
        sessionId={route.params.get('session_id')}
      />
    );
  else
    page = (
      <p>
        Nothing here.{' '}
        <a
          href="/console/fleet"
          onClick={(e) => {
            e.preventDefault();
            navigate('/fleet');
          }}
        >
          Go to the fleet
        </a>
        .
      </p>
    );
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header>
        <strong class="brand">GPU Orchestrator</strong>
        <nav aria-label="Pages">
          {PAGES.map((p) => (
            <a
              key={p.path}
              href={`/console${p.path}`}
              aria-current={section(route.path) === p.path ? 'page' : undefined}
              onClick={(e) => {
                e.preventDefault();
                navigate(p.path);
              }}
            >
              {p.title}
            </a>
          ))}
        </nav>
        <button type="button" class="secondary" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        <ScopesContext.Provider value={scopes ?? new Set()}>{page}</ScopesContext.Provider>
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
