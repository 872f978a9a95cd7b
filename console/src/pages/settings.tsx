/** Settings: provider keys (connect and verify), SSH keys (add, default) and API keys (scopes, cap, expiry). */
import type { Api } from '../api';
import { ApiKeysSection } from './api-keys';
import { ProviderKeysSection, SshKeysSection } from './onboarding';

export function SettingsPage({ api }: { api: Api }) {
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <ProviderKeysSection api={api} />
      <SshKeysSection api={api} />
      <ApiKeysSection api={api} />
    </section>
  );
}
