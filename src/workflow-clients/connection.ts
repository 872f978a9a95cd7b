import { Client, Connection } from '@temporalio/client';

export interface TemporalSettings {
  address: string;
  namespace: string;
  taskQueue: string;
}

export async function connectTemporalClient(settings: TemporalSettings): Promise<Client> {
  const connection = await Connection.connect({ address: settings.address });
  return new Client({ connection, namespace: settings.namespace });
}
