/**
 * The account's provider keys: sealing on write, opening for a provider call. Used by the API (verify,
 * instance lists) and by activities (launches); the plaintext key lives only for the call that needs it.
 */
import type { ProviderKeyQueries } from '../db/queries/provider-keys';
import type { KeyVault } from '../domain/key-vault';
import { ProviderNotConnectedError } from '../errors';
import type { ProviderId } from './types';

export function createProviderCredentials(queries: ProviderKeyQueries, vault: KeyVault) {
  return {
    seal: (accountId: string, apiKey: string) => vault.seal(apiKey, accountId),

    /** The decrypted key, or null when the account has not connected this provider. */
    async findApiKey(accountId: string, provider: ProviderId): Promise<string | null> {
      const sealed = await queries.findSealedKey(accountId, provider);
      return sealed ? vault.open(sealed, accountId) : null;
    },

    /** The decrypted key; throws 422 provider_not_connected when there is none. */
    async requireApiKey(accountId: string, provider: ProviderId): Promise<string> {
      const key = await this.findApiKey(accountId, provider);
      if (key === null) throw new ProviderNotConnectedError(provider);
      return key;
    },
  };
}
export type ProviderCredentials = ReturnType<typeof createProviderCredentials>;
