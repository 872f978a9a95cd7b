/**
 * Step 3 of the launch page: the settings of the chosen offer (image, disk, volume, SSH key, on-start command,
 * idle stop: off by default, not offered for Lambda) and the launch body they make.
 */
import type { PlannedLaunch, SshKey, Template } from '../types';
import { PROVIDER_NAMES } from '../format';

export interface Settings {
  name: string;
  template: string;
  docker_image: string;
  disk_gb: string;
  volume_gb: string;
  ssh_key_name: string;
  onstart_cmd: string;
  /** Idle stop (`idle_stop`): off by default; runpod and vastai only (Lambda reports no GPU utilization). */
  idle_stop: boolean;
  idle_percent: string;
  idle_minutes: string;
}

export const NO_SETTINGS: Settings = {
  name: '',
  template: '',
  docker_image: '',
  disk_gb: '',
  volume_gb: '',
  ssh_key_name: '',
  onstart_cmd: '',
  idle_stop: false,
  idle_percent: '10',
  idle_minutes: '30',
};

/** The launch body for an offer and the settings, with only the fields that provider takes. */
export function launchBody(offer: PlannedLaunch, s: Settings, templates: Template[]): Record<string, unknown> {
  const body: Record<string, unknown> = { ...offer.launch };
  const image =
    s.template === 'custom' ? s.docker_image.trim() : templates.find((t) => t.slug === s.template)?.docker_image;
  if (image) body.docker_image = image;
  if (s.name.trim()) body.name = s.name.trim();
  if (s.disk_gb) body.disk_gb = Number(s.disk_gb);
  if (offer.provider === 'runpod' && s.volume_gb) body.volume_gb = Number(s.volume_gb);
  if (offer.provider === 'lambda' && s.ssh_key_name) body.ssh_key_name = s.ssh_key_name;
  if (offer.provider !== 'lambda' && s.onstart_cmd.trim()) body.onstart_cmd = s.onstart_cmd;
  if (offer.provider !== 'lambda' && s.idle_stop) {
    body.idle_stop = { utilization_below_percent: Number(s.idle_percent), for_minutes: Number(s.idle_minutes) };
  }
  return body;
}

/** An input's handler that writes one setting. */
type SetSetting = (k: keyof Settings) => (e: Event) => void;

export function SettingsForm({
  offer,
  settings,
  setSettings,
  templates,
  sshKeys,
  busy,
  onSubmit,
}: {
  offer: PlannedLaunch;
  settings: Settings;
  setSettings: (s: Settings) => void;
  templates: Template[];
  sshKeys: SshKey[];
  busy: boolean;
  onSubmit: (e: Event) => void;
}) {
  const set: SetSetting = (k) => (e) =>
    setSettings({
      ...settings,
      [k]:
        (e.target as HTMLInputElement).type === 'checkbox'
          ? (e.target as HTMLInputElement).checked
          : (e.target as HTMLInputElement).value,
    });
  return (
    <form onSubmit={onSubmit} aria-label="3. Settings" class="settings-form">
      <h2>
        3. Settings for {PROVIDER_NAMES[offer.provider]} {offer.gpu_count}× {offer.gpu_type}
      </h2>
      <div class="inline-form">
        <div>
          <label for="launch-name">Name</label>
          <input id="launch-name" value={settings.name} placeholder="optional" onInput={set('name')} />
        </div>
        <div>
          <label for="launch-template">Image</label>
          <select id="launch-template" value={settings.template} onChange={set('template')}>
            {templates.map((t) => (
              <option key={t.slug} value={t.slug}>
                {t.name}
              </option>
            ))}
            <option value="custom">Custom image…</option>
          </select>
        </div>
        {settings.template === 'custom' ? (
          <div>
            <label for="launch-image">Docker image</label>
            <input id="launch-image" required value={settings.docker_image} onInput={set('docker_image')} />
          </div>
        ) : null}
        <div>
          <label for="launch-disk">Disk (GB)</label>
          <input
            id="launch-disk"
            type="number"
            min="5"
            value={settings.disk_gb}
            placeholder="default"
            onInput={set('disk_gb')}
          />
        </div>
        {offer.provider === 'runpod' ? (
          <div>
            <label for="launch-volume">Volume (GB)</label>
            <input
              id="launch-volume"
              type="number"
              min="10"
              value={settings.volume_gb}
              placeholder="none"
              onInput={set('volume_gb')}
            />
          </div>
        ) : null}
        {offer.provider === 'lambda' ? (
          <div>
            <label for="launch-ssh">SSH key</label>
            <select id="launch-ssh" value={settings.ssh_key_name} onChange={set('ssh_key_name')}>
              <option value="">The default key</option>
              {sshKeys.map((k) => (
                <option key={k.id} value={k.name}>
                  {k.name}
                </option>
              ))}
            </select>
          </div>
        ) : (
          <p class="hint">
            The account's default SSH key is installed
            {sshKeys.length === 0 ? ' (none yet: add one in settings)' : ''}.
          </p>
        )}
        {offer.provider !== 'lambda' ? (
          <div>
            <label for="launch-onstart">On-start command</label>
            <input id="launch-onstart" value={settings.onstart_cmd} onInput={set('onstart_cmd')} />
          </div>
        ) : null}
      </div>
      <IdleStopFields offer={offer} settings={settings} set={set} />
      <button type="submit" disabled={busy}>
        Review the plan
      </button>
    </form>
  );
}

function IdleStopFields({ offer, settings, set }: { offer: PlannedLaunch; settings: Settings; set: SetSetting }) {
  return offer.provider === 'lambda' ? (
    <p class="hint">Idle stop is not available: Lambda reports no GPU utilization.</p>
  ) : (
    <fieldset class="inline-form">
      <legend>Idle stop</legend>
      <div>
        <label for="launch-idle">
          <input id="launch-idle" type="checkbox" checked={settings.idle_stop} onChange={set('idle_stop')} />{' '}
          {offer.provider === 'runpod' ? 'Stop' : 'Terminate'} when idle
        </label>
      </div>
      {settings.idle_stop ? (
        <>
          <div>
            <label for="launch-idle-percent">Every GPU below (%)</label>
            <input
              id="launch-idle-percent"
              type="number"
              min="1"
              max="100"
              required
              value={settings.idle_percent}
              onInput={set('idle_percent')}
            />
          </div>
          <div>
            <label for="launch-idle-minutes">For (minutes)</label>
            <input
              id="launch-idle-minutes"
              type="number"
              min="1"
              step="1"
              required
              value={settings.idle_minutes}
              onInput={set('idle_minutes')}
            />
          </div>
        </>
      ) : null}
    </fieldset>
  );
}
