/**
 * A schedule's `startup_script` at rest: sealed by the key vault (src/domain/sealed-text.ts) under its account,
 * so a database dump or a copied row shows no tokens the script carries. The sealed text is what the schedule's
 * runs carry through the engine as their launch's start command; the create activity opens it just before it is
 * sent to the provider. Text that is not sealed (written before sealing) opens as itself.
 */
import type { KeyVault } from './key-vault';
import { isSealedText, openText, sealText } from './sealed-text';

const associatedData = (accountId: string) => `schedule-startup-script:${accountId}`;

export function sealStartupScript(vault: Pick<KeyVault, 'seal'>, accountId: string, script: string): string {
  return sealText(vault, script, associatedData(accountId));
}

export function openStartupScript(vault: Pick<KeyVault, 'open'>, accountId: string, stored: string): string {
  return openText(vault, stored, associatedData(accountId));
}

export { isSealedText };
