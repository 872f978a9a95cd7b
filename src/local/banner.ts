/** What `npm start` prints once everything answers: where each part is, and the demo account to sign in with. */
import path from 'node:path';
import type { LocalSimulators } from './local-services';

export interface RunningLocally {
  apiUrl: string;
  opsUrl: string;
  /** Whether OPS_TOKEN guards the operations listener (otherwise it listens on loopback only). */
  opsToken: boolean;
  temporalUiUrl: string | null;
  workerMetricsUrl: string;
  dataDir: string;
  accountId: string;
  apiKey: string;
  simulated: LocalSimulators;
  paymentsLabel: string;
  stateFile: string;
}

export function localBanner(r: RunningLocally): string {
  const { apiUrl, opsUrl, simulated } = r;
  return [
    '',
    'GPU orchestrator is running locally.',
    `  Console:      ${apiUrl}/console   (sign in with the demo API key below)`,
    `  API:          ${apiUrl}   (reference: ${apiUrl}/docs)`,
    `  Temporal UI:  ${r.temporalUiUrl ?? '(external Temporal: see your own UI)'}   ` +
      `(payloads decoded via ${opsUrl}/codec)`,
    `  Operations:   ${opsUrl}   ` +
      `(/metrics, /codec/decode, /readyz${r.opsToken ? '; Authorization: Bearer $OPS_TOKEN' : '; loopback only'})`,
    `  Metrics:      ${opsUrl}/metrics (API), ${r.workerMetricsUrl} (worker)`,
    `  Logs:         ${path.join(r.dataDir, 'logs')} ` +
      '(api.log, worker.log; also printed here, one JSON object per line)',
    `  Demo account: ${r.accountId}`,
    `  Demo API key: ${r.apiKey}`,
    ...(simulated
      ? [
          `  Providers:    local simulators (RunPod ${simulated.sims.runpod.baseUrl}, ` +
            `Vast.ai ${simulated.sims.vastai.baseUrl}, Lambda ${simulated.sims.lambda.baseUrl})`,
          `                sandbox keys connected to the demo account; see sandbox_provider_keys in local.json`,
        ]
      : ['  Providers:    the real provider APIs (base URLs from the environment)']),
    `  Payments:     ${r.paymentsLabel}; ` +
      'top up: POST /v1/billing/credit, then npm run billing:complete-checkout -- <session_id>',
    `  Saved to:     ${r.stateFile}`,
    '',
    `  curl -H "Authorization: Bearer ${r.apiKey}" ${apiUrl}/v1/templates`,
    '',
    'Press Ctrl-C to stop.',
    '',
  ].join('\n');
}
