/**
 * `npm run sdk:generate`: writes the API's OpenAPI document to sdk/openapi.json, the TypeScript SDK's types
 * generated from it (openapi-typescript) to sdk/src/schema.ts, and the Python client's generated package
 * (openapi-python-client, in the virtualenv sdk/python/.venv it makes) to sdk/python/src/gpuo/openapi. Run it
 * after changing a route; the drift test in test/sdk/drift.test.ts fails until you do.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { servedOpenApiDocument } from '../src/http/openapi-offline';
import { generateSdkTypes } from '../sdk/generate';
import { ensurePythonVenv, generatePythonClient, GENERATED_PACKAGE } from '../sdk/python/generate';

async function main(): Promise<void> {
  const sdk = path.resolve(__dirname, '..', 'sdk');
  const document = await servedOpenApiDocument();
  await writeFile(path.join(sdk, 'openapi.json'), JSON.stringify(document, null, 2) + '\n');
  await writeFile(path.join(sdk, 'src', 'schema.ts'), await generateSdkTypes(document));
  process.stdout.write(`wrote ${path.join(sdk, 'openapi.json')} and ${path.join(sdk, 'src', 'schema.ts')}\n`);
  await ensurePythonVenv();
  await generatePythonClient(document);
  process.stdout.write(`wrote ${GENERATED_PACKAGE}\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
