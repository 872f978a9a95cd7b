/**
 * Schedules' startup scripts written in plaintext before sealing (migration 042) are sealed in place by the
 * start-up data migration, open to the same text for their account only, and from then on the database refuses
 * a plaintext script.
 */
import { createAccountQueries } from '../../src/db/queries/accounts';
import { sealStartupScripts } from '../../src/db/queries/schedule-scripts';
import { openStartupScript } from '../../src/domain/startup-script';
import { createTestDatabase, type TestDatabase } from '../helpers/db';
import { testVault } from '../helpers/context';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

const insertSchedule = (id: string, accountId: string, script: string | null) =>
  db.sql(
    `INSERT INTO schedules (id, account_id, name, gpu, template, cron, startup_script, status)
     VALUES ($1, $2, 'nightly', 'rtx-4090', 'pytorch', '0 3 * * *', $3, 'active')`,
    [id, accountId, script],
  );

it(
  'seals the plaintext scripts of rows from before, which then open to the same text; ' +
    'plaintext is refused from then on',
  async () => {
    const { account } = await createAccountQueries(db.pool).insertAccountWithKey('legacy');
    const script = 'export HF_TOKEN=hf_legacy\npython train.py\n';
    // The rows as they were before migration 042: written in plaintext, which its constraint now refuses.
    await db.sql('ALTER TABLE schedules DROP CONSTRAINT schedules_startup_script_sealed');
    await insertSchedule('sched_legacy_1', account.id, script);
    await insertSchedule('sched_legacy_2', account.id, null);
    await db.sql(
      `ALTER TABLE schedules ADD CONSTRAINT schedules_startup_script_sealed
       CHECK (startup_script IS NULL OR startup_script LIKE 'sealed:v1:%') NOT VALID`,
    );

    const vault = testVault();
    expect(await sealStartupScripts(db.pool, vault)).toBe(1);
    const rows = await db.sql<{ id: string; startup_script: string | null }>(
      "SELECT id, startup_script FROM schedules WHERE id LIKE 'sched_legacy_%' ORDER BY id",
    );
    expect(rows[1]!.startup_script).toBeNull();
    const sealed = rows[0]!.startup_script!;
    expect(sealed).toMatch(/^sealed:v1:test:/);
    expect(sealed).not.toContain('hf_legacy');
    expect(openStartupScript(vault, account.id, sealed)).toBe(script);
    expect(() => openStartupScript(vault, 'acct_other', sealed)).toThrow();
    // A second run finds nothing left to seal; every row now satisfies the constraint.
    expect(await sealStartupScripts(db.pool, vault)).toBe(0);
    await db.sql('ALTER TABLE schedules VALIDATE CONSTRAINT schedules_startup_script_sealed');
    await expect(insertSchedule('sched_plain', account.id, 'python train.py')).rejects.toThrow(
      /schedules_startup_script_sealed/,
    );
  },
);
