import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';

export interface TemporalSettings {
  address: string;
  namespace: string;
  taskQueue: string;
  /** {@link temporalDataConverter} (payload encryption): required, so no client of ours writes plaintext. */
  dataConverter: DataConverter;
}

export async function connectTemporalClient(settings: TemporalSettings): Promise<Client> {
  const connection = await Connection.connect({ address: settings.address });
  return new Client({ connection, namespace: settings.namespace, dataConverter: settings.dataConverter });
}
