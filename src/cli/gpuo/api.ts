/** The API client `gpuo` uses, from the saved login, and the one way its calls turn error answers into errors. */
import { createGpuoClient, errorFromResponse, type GpuoClient, type Page } from '../../../sdk/src';
import { DEFAULT_API_URL, readConfig } from './config';
import { UsageError } from './output';

export async function connect(env: NodeJS.ProcessEnv = process.env): Promise<GpuoClient> {
  const config = await readConfig(env);
  if (!config.api_key)
    throw new UsageError('not logged in: run `gpuo login --key <API key> [--url <API URL>]` (or set GPUO_API_KEY)');
  return createGpuoClient({ baseUrl: config.api_url ?? DEFAULT_API_URL, apiKey: config.api_key });
}

/** The answer of a call on the SDK's generated client (`sdk.raw`), or its typed error. */
export async function call<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await request;
  if (!response.ok) throw errorFromResponse(response, error);
  return data as T;
}

export type { GpuoClient, Page };
