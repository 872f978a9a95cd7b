/**
 * "No charge of $0 for a priced instance anywhere in the suite": every test file that uses the test context
 * checks its own database when it closes (createTestContext().close()), and fails naming the charges found.
 */
import type { TestDatabase } from './db';

interface ZeroCharge {
  ledger_id: string;
  account_id: string;
  instance_id: string;
  description: string;
  price_per_hour_micros: string;
}

/** `instance_charge` rows of $0 for instances with a price (the provider's, or the launch quote standing in). */
export async function findZeroChargesOfPricedInstances(db: Pick<TestDatabase, 'sql'>): Promise<ZeroCharge[]> {
  return db.sql<ZeroCharge>(`
    SELECT l.id AS ledger_id, l.account_id, l.instance_id, l.description,
           coalesce(i.price_per_hour_micros, i.quote_per_hour_micros)::text AS price_per_hour_micros
    FROM ledger_entries l
    JOIN instances i ON i.account_id = l.account_id AND (i.provider_instance_id = l.instance_id OR i.id = l.instance_id)
    WHERE l.type = 'instance_charge' AND l.amount_micros = 0
      AND coalesce(i.price_per_hour_micros, i.quote_per_hour_micros) IS NOT NULL
    ORDER BY l.seq`);
}

export async function assertNoZeroChargesOfPricedInstances(db: Pick<TestDatabase, 'sql'>): Promise<void> {
  const found = await findZeroChargesOfPricedInstances(db);
  if (!found.length) return;
  const lines = found.map(
    (c) =>
      `  ${c.ledger_id} (account ${c.account_id}, instance ${c.instance_id}, ` +
      `price ${c.price_per_hour_micros} µ$/h): ${c.description}`,
  );
  throw new Error(`$0 instance_charge for a priced instance (${found.length}):\n${lines.join('\n')}`);
}
