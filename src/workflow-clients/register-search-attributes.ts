/**
 * Registers our search attributes on a namespace that lacks them (the worker does this at start), so a
 * Temporal that nobody prepared still accepts our workflow starts: a start naming an unregistered attribute
 * is refused by the server. Creating is idempotent; several workers starting at once all succeed.
 */
import type { Client } from '@temporalio/client';
import { SEARCH_ATTRIBUTES } from '../../workflows/contracts/search-attributes';

/** `temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD` (all of ours are Keyword). */
const INDEXED_VALUE_TYPE_KEYWORD = 2;

async function missingAttributes(client: Client, namespace: string): Promise<string[]> {
  const { customAttributes } = await client.connection.operatorService.listSearchAttributes({ namespace });
  const existing = customAttributes ?? {};
  const wrongType = SEARCH_ATTRIBUTES.filter(
    (k) => k.name in existing && Number(existing[k.name]) !== INDEXED_VALUE_TYPE_KEYWORD,
  );
  if (wrongType.length) {
    throw new Error(
      `search attributes ${wrongType.map((k) => k.name).join(', ')} exist in namespace ${namespace} ` +
        'with a type other than Keyword',
    );
  }
  return SEARCH_ATTRIBUTES.filter((k) => !(k.name in existing)).map((k) => k.name);
}

/** Adds whichever of our search attributes `namespace` lacks; returns the names it added. */
export async function ensureSearchAttributes(client: Client, namespace: string): Promise<string[]> {
  const missing = await missingAttributes(client, namespace);
  if (!missing.length) return [];
  try {
    await client.connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((name) => [name, INDEXED_VALUE_TYPE_KEYWORD])),
    });
  } catch (err) {
    // Another worker may have added them a moment ago: fine if they are all there now.
    if ((await missingAttributes(client, namespace)).length) throw err;
  }
  return missing;
}
