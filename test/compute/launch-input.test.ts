/**
 * What the launch workflow is given for a parsed launch request (`launchInputOf`, the launch library):
 * replays are recognised by the body whatever its key order, a provider only gets the fields it uses, and a
 * retried request (same key) names the same instance at the provider.
 */
import { launchInputOf, type LaunchRequest } from '../../src/launch/input';

const request = (over: Partial<LaunchRequest> = {}, body: Partial<LaunchRequest['body']> = {}): LaunchRequest => ({
  accountId: 'acct_1',
  idempotencyKey: 'key-1',
  apiKeyId: 'key_abc',
  warnings: [],
  ...over,
  body: { provider: 'runpod', gpu_type: 'rtx-4090', gpu_count: 1, spot: false, ...body },
});

describe('launchInputOf', () => {
  it(
    'names the workflow (and row) after the account and the Idempotency-Key, ' +
      'and tags the provider-side name from it',
    () => {
      const first = launchInputOf(request());
      const retried = launchInputOf(request());
      const other = launchInputOf(request({ idempotencyKey: 'key-2' }));
      expect(first.instanceId).toBe('launch-acct_1-key-1');
      expect(first.providerName).toMatch(/^gpuo-[0-9a-f]{10}$/);
      expect(first.name).toBe(first.providerName);
      expect(retried.providerName).toBe(first.providerName);
      expect(other.providerName).not.toBe(first.providerName);
      expect(launchInputOf(request({}, { name: 'trainer' }))).toMatchObject({
        name: 'trainer',
        providerName: expect.stringMatching(/^trainer-[0-9a-f]{10}$/),
      });
    },
  );

  it('compares replays by the body, not by its key order', () => {
    const a = request({}, { docker_image: 'pytorch/pytorch', disk_gb: 50 });
    const reordered: LaunchRequest = {
      ...a,
      body: {
        disk_gb: 50,
        docker_image: 'pytorch/pytorch',
        spot: false,
        gpu_count: 1,
        gpu_type: 'rtx-4090',
        provider: 'runpod',
      },
    };
    expect(launchInputOf(reordered).requestHash).toBe(launchInputOf(a).requestHash);
    expect(launchInputOf(request({}, { disk_gb: 51 })).requestHash).not.toBe(launchInputOf(a).requestHash);
  });

  it('gives each provider only the capability fields it uses', () => {
    const fields = { volume_gb: 20, ssh_key_name: 'laptop', onstart_cmd: 'echo hi' };
    expect(launchInputOf(request({}, { ...fields, provider: 'runpod' }))).toMatchObject({
      volumeGb: 20,
      sshKeyName: undefined,
      onstartCmd: 'echo hi',
    });
    expect(launchInputOf(request({}, { ...fields, provider: 'lambda', region: 'us-east-1' }))).toMatchObject({
      volumeGb: undefined,
      sshKeyName: 'laptop',
      onstartCmd: undefined,
    });
    expect(launchInputOf(request({}, { ...fields, provider: 'vastai' }))).toMatchObject({
      volumeGb: undefined,
      sshKeyName: undefined,
      onstartCmd: 'echo hi',
    });
  });

  it('carries the warnings, the API key and the timing it is given', () => {
    const input = launchInputOf(request({ warnings: ['w'] }), {
      pollIntervalMs: 1_000,
      meterIntervalMs: 2_000,
      bootPollMaxMs: 50,
    });
    expect(input).toMatchObject({
      warnings: ['w'],
      apiKeyId: 'key_abc',
      pollIntervalMs: 1_000,
      meterIntervalMs: 2_000,
      bootPollMaxMs: 50,
    });
    expect(launchInputOf(request())).toMatchObject({ pollIntervalMs: 60_000, meterIntervalMs: 3_600_000 });
  });
});
