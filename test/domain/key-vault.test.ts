import { randomBytes } from 'node:crypto';
import { KeyVault, keyHint } from '../../src/domain/key-vault';

describe('KeyVault', () => {
  const k1 = randomBytes(32);
  const k2 = randomBytes(32);

  it('round-trips a key for the same account and never stores it in the clear', () => {
    const vault = new KeyVault('k1', k1);
    const sealed = vault.seal('rpa_SECRET123', 'acct_a');
    expect(sealed.keyId).toBe('k1');
    expect(sealed.ciphertext.toString('latin1')).not.toContain('SECRET');
    expect(vault.open(sealed, 'acct_a')).toBe('rpa_SECRET123');
  });

  it('refuses to open a ciphertext under another account id (associated data)', () => {
    const vault = new KeyVault('k1', k1);
    const sealed = vault.seal('rpa_SECRET123', 'acct_a');
    expect(() => vault.open(sealed, 'acct_b')).toThrow();
  });

  it('refuses a tampered ciphertext', () => {
    const vault = new KeyVault('k1', k1);
    const sealed = vault.seal('rpa_SECRET123', 'acct_a');
    sealed.ciphertext[0]! ^= 1;
    expect(() => vault.open(sealed, 'acct_a')).toThrow();
  });

  it('after a rotation, writes with the new key and still reads rows sealed with the previous one', () => {
    const before = new KeyVault('k1', k1);
    const old = before.seal('old-key', 'acct_a');
    const after = KeyVault.fromConfig('k2', k2.toString('base64'), `k1:${k1.toString('base64')}`);
    expect(after.open(old, 'acct_a')).toBe('old-key');
    const fresh = after.seal('new-key', 'acct_a');
    expect(fresh.keyId).toBe('k2');
    expect(() => before.open(fresh, 'acct_a')).toThrow(/no master key with id k2/);
  });

  it('hints at most the last four characters, fewer for short keys', () => {
    expect(keyHint('secret_sim_abcdef1234')).toBe('…1234');
    expect(keyHint('abcdefg')).toBe('…g');
    expect(keyHint('abc')).toBe('…');
  });
});
