/**
 * The failure converter of every client and worker (loaded by path, also inside the workflow sandbox, so it
 * imports nothing but @temporalio/common). `encodeCommonAttributes` moves each failure's message and stack
 * trace into a payload, which the payload codec then encrypts: provider error texts and instance addresses
 * in failure messages never reach Temporal's history in the clear.
 */
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
