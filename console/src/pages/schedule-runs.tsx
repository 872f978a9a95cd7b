/** A schedule's run history: when each run was due, where it ran, what it cost and why it ended. */
import type { Api } from '../api';
import type { Page, Schedule, ScheduleRun } from '../types';
import { Empty, ErrorNotice, usePoll } from '../ui';
import { dollars, localTime, perHour } from '../format';

/** The latest 20 runs of `schedule`, newest first. */
export function Runs({ api, schedule }: { api: Api; schedule: Schedule }) {
  const runs = usePoll(
    () => api.request<Page<ScheduleRun>>('GET', `/v1/schedules/${encodeURIComponent(schedule.id)}/runs?limit=20`),
    15_000,
    [api, schedule.id],
  );
  if (runs.error) return <ErrorNotice error={runs.error} />;
  if (!runs.data) return <p>Loading runs…</p>;
  if (runs.data.data.length === 0)
    return (
      <Empty>
        No runs yet. The next one starts{' '}
        {schedule.next_run_at ? localTime(schedule.next_run_at) : 'when the schedule is resumed'}.
      </Empty>
    );
  return (
    <div class="table-wrap">
      <table>
        <caption class="sr-only">Runs of {schedule.name}</caption>
        <thead>
          <tr>
            <th scope="col">Scheduled</th>
            <th scope="col">Status</th>
            <th scope="col">Where</th>
            <th scope="col">Price</th>
            <th scope="col" class="num">
              Cost
            </th>
            <th scope="col">Ended</th>
            <th scope="col">Why</th>
          </tr>
        </thead>
        <tbody>
          {runs.data.data.map((r) => (
            <tr key={r.id}>
              <td>{localTime(r.scheduled_at)}</td>
              <td>{r.status}</td>
              <td>{r.provider ? `${r.provider} ${r.instance_id ?? ''}` : '—'}</td>
              <td>{perHour(r.price_per_hour)}</td>
              <td class="num">{dollars(r.cost, 4)}</td>
              <td>{localTime(r.ended_at)}</td>
              <td>{r.stop_reason ?? r.error ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
