import { z } from 'zod';
import type { LimitQueries } from '../../db/queries/limits';
import type { SshKey, SshKeyQueries } from '../../db/queries/ssh-keys';
import { parseSshPublicKey, SSH_KEY_TYPES, SshKeyError } from '../../domain/ssh-keys';
import { NotFoundError, ValidationError } from '../../errors';
import { ListQuery, pageOf } from '../paging';
import type { ApiRouter } from '../route';
import { Deleted, isoTimestamp } from '../schemas';
import { pathId, text } from '../text';

export const SshKeyRecord = z.object({
  id: z.string(),
  name: z.string(),
  public_key: z.string(),
  fingerprint: z.string().describe('"SHA256:" + unpadded base64, as ssh-keygen -l prints it'),
  key_type: z.enum(SSH_KEY_TYPES),
  is_default: z.boolean(),
  created_at: isoTimestamp,
});

const CreateSshKeyBody = z
  .object({
    name: text({ max: 100, trim: true }),
    public_key: text({ max: 16_384, trim: true }).describe('one line: key type, base64 key, optional comment'),
  })
  .strict();

const IdParams = z.object({ id: pathId(100) }).strict();

function toRecord(row: SshKey): z.infer<typeof SshKeyRecord> {
  return { ...row, key_type: row.key_type as z.infer<typeof SshKeyRecord>['key_type'] };
}

export function registerSshKeyRoutes(api: ApiRouter, sshKeys: SshKeyQueries, limits: LimitQueries): void {
  api.add({
    method: 'post',
    path: '/v1/ssh-keys',
    tag: 'SSH keys',
    summary: "Add an SSH public key (the account's first key becomes its default)",
    auth: true,
    body: CreateSshKeyBody,
    responses: { 201: { description: 'The added key', schema: SshKeyRecord } },
    errors: [409, 422],
    handler: async ({ body, accountId }) => {
      let parsed;
      try {
        parsed = parseSshPublicKey(body.public_key);
      } catch (err) {
        if (err instanceof SshKeyError) {
          throw new ValidationError(`Invalid body: public_key ${err.message}.`, [
            { path: 'public_key', message: err.message },
          ]);
        }
        throw err;
      }
      const row = await sshKeys.insertSshKey(accountId, { name: body.name, ...parsed }, (tx) =>
        limits.assertWithinLimits(tx, accountId, [{ name: 'ssh_keys' }]),
      );
      return { status: 201, body: toRecord(row) };
    },
  });

  api.add({
    method: 'get',
    path: '/v1/ssh-keys',
    tag: 'SSH keys',
    summary: 'List SSH keys, newest first',
    description: '`limit` (default 50, max 200) and `cursor` page.',
    auth: true,
    query: ListQuery,
    responses: { 200: { description: "A page of the account's keys", schema: pageOf(SshKeyRecord) } },
    handler: async ({ query, accountId }) => {
      const page = await sshKeys.listSshKeys(accountId, query);
      return { body: { ...page, data: page.data.map(toRecord) } };
    },
  });

  api.add({
    method: 'delete',
    path: '/v1/ssh-keys/{id}',
    tag: 'SSH keys',
    summary: 'Delete an SSH key (deleting the default makes the newest remaining key the default)',
    auth: true,
    params: IdParams,
    responses: { 200: { description: 'Deleted', schema: Deleted } },
    handler: async ({ params, accountId }) => {
      if (!(await sshKeys.deleteSshKey(accountId, params.id))) throw new NotFoundError(`No SSH key ${params.id}.`);
      return { body: { id: params.id, deleted: true } };
    },
  });

  api.add({
    method: 'put',
    path: '/v1/ssh-keys/{id}/default',
    tag: 'SSH keys',
    summary: 'Make this key the default attached to every new instance',
    auth: true,
    params: IdParams,
    responses: { 200: { description: 'The new default key', schema: SshKeyRecord } },
    handler: async ({ params, accountId }) => {
      const row = await sshKeys.setDefaultSshKey(accountId, params.id);
      if (!row) throw new NotFoundError(`No SSH key ${params.id}.`);
      return { body: toRecord(row) };
    },
  });
}
