/**
 * Signing is the Standard Webhooks scheme: what we sign, the `standardwebhooks` package verifies, and our own
 * verifier (a pure function of body, headers, secret and now) agrees with it, rejecting every tampering.
 */
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import {
  generateWebhookSecret,
  signWebhook,
  verifyWebhook,
  webhookSecretProblem,
} from '../../src/domain/webhook-signing';

const now = 1_795_000_000;

it('signs so that standardwebhooks verifies any JSON body, and our verifier agrees', () => {
  fc.assert(
    fc.property(fc.json(), fc.stringMatching(/^[A-Za-z0-9_]{1,40}$/), (body, id) => {
      const secret = generateWebhookSecret();
      const ts = Math.floor(Date.now() / 1000);
      const headers = {
        'webhook-id': id,
        'webhook-timestamp': String(ts),
        'webhook-signature': signWebhook(secret, id, ts, body),
      };
      expect(() => new Webhook(secret).verify(body, headers)).not.toThrow();
      expect(verifyWebhook(secret, body, headers, ts)).toBe(true);
      // and the package's own signature is one we accept
      expect(new Webhook(secret).sign(id, new Date(ts * 1000), body)).toBe(headers['webhook-signature']);
    }),
    { numRuns: 50 },
  );
});

it('rejects a changed body, id or timestamp, another secret, a stale timestamp and a missing header', () => {
  const secret = generateWebhookSecret();
  const body = '{"id":"evt_1","type":"webhook.test","created_at":"2026-11-22T00:00:00.000Z","data":{}}';
  const headers = {
    'webhook-id': 'dlv_1',
    'webhook-timestamp': String(now),
    'webhook-signature': signWebhook(secret, 'dlv_1', now, body),
  };
  expect(verifyWebhook(secret, body, headers, now)).toBe(true);
  expect(verifyWebhook(secret, body + ' ', headers, now)).toBe(false);
  expect(verifyWebhook(secret, body, { ...headers, 'webhook-id': 'dlv_2' }, now)).toBe(false);
  expect(verifyWebhook(secret, body, { ...headers, 'webhook-timestamp': String(now + 1) }, now)).toBe(false);
  expect(verifyWebhook(generateWebhookSecret(), body, headers, now)).toBe(false);
  expect(verifyWebhook(secret, body, headers, now + 301)).toBe(false);
  expect(verifyWebhook(secret, body, { ...headers, 'webhook-signature': undefined }, now)).toBe(false);
  // several signatures (key rotation): one match is enough
  expect(
    verifyWebhook(secret, body, { ...headers, 'webhook-signature': `v1,AAAA ${headers['webhook-signature']}` }, now),
  ).toBe(true);
});

it('generates whsec_ secrets of 24 random bytes and checks client-chosen ones', () => {
  const a = generateWebhookSecret();
  expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
  expect(a).not.toBe(generateWebhookSecret());
  expect(webhookSecretProblem(a)).toBeNull();
  expect(webhookSecretProblem('whsec_' + Buffer.alloc(64).toString('base64'))).toBeNull();
  expect(webhookSecretProblem('whsec_' + Buffer.alloc(23).toString('base64'))).toMatch(/24 to 64/);
  expect(webhookSecretProblem('whsec_' + Buffer.alloc(65).toString('base64'))).toMatch(/24 to 64/);
  expect(webhookSecretProblem('secret')).toMatch(/whsec_/);
  expect(webhookSecretProblem('whsec_AAAA$')).toMatch(/whsec_/);
});
