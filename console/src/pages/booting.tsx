/** The launch page after the launch: the new instance, live, until it runs. */
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api';
import type { Instance } from '../types';
import { ErrorNotice, Link } from '../ui';
import { PROVIDER_NAMES, perHour } from '../format';
import { navigate } from '../router';

/** After the launch: the instance from the fleet view, live, until it runs (or fails). */
export function Booting({ api, instance }: { api: Api; instance: Instance }) {
  const [current, setCurrent] = useState<Instance>(instance);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (current.status === 'running' || current.status === 'failed' || current.status === 'terminated')
      return undefined;
    const timer = setTimeout(() => {
      api.listInstances().then((list) => {
        const found = list.data.find((i) => i.id === instance.id && i.provider === instance.provider);
        if (found) setCurrent(found);
        setError(null);
      }, setError);
    }, 1000);
    return () => clearTimeout(timer);
  }, [api, current]);
  return (
    <section aria-labelledby="booting-title">
      <h1 id="booting-title">{current.name ?? current.id}</h1>
      <p role="status">
        Status:{' '}
        <span class={`status status-${current.status}`} data-testid="launch-status">
          {current.status}
        </span>
        {current.status === 'provisioning' ? ' (the provider is starting it)' : ''}
      </p>
      <ErrorNotice error={error} />
      <p>
        {PROVIDER_NAMES[current.provider]} · {perHour(current.price_per_hour)} · id <code>{current.id}</code>
      </p>
      {current.idle_stop ? (
        <p data-testid="launch-idle-stop">
          Idle stop: {current.provider === 'runpod' ? 'stopped' : 'terminated'} once every GPU is below{' '}
          {current.idle_stop.utilization_below_percent}% for {current.idle_stop.for_minutes} min.
        </p>
      ) : null}
      {current.ssh ? (
        <p>
          SSH:{' '}
          <code>
            ssh {current.ssh.user}@{current.ssh.host} -p {current.ssh.port}
          </code>
        </p>
      ) : null}
      <p>
        <Link to={`/instances/${encodeURIComponent(current.id)}`}>Open the instance page</Link> (cost to date, timeline,
        log) ·{' '}
        <a
          href="/console/fleet"
          onClick={(e) => {
            e.preventDefault();
            navigate('/fleet');
          }}
        >
          Go to the fleet
        </a>
      </p>
    </section>
  );
}
