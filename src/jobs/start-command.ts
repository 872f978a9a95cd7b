/**
 * The start command of a job's attempt: the wrapper (./wrapper.sh, kept as a real file and tested as one) with
 * the job's command, its env and the attempt's exit token. Built only inside the create activity, from the
 * reference the launch carries (`gpuo-job-attempt:<job>:<n>`), so neither the token nor the env reaches
 * workflow history; the token is stored only as its SHA-256.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JobQueries } from '../db/queries/jobs';
import type { KeyVault } from '../domain/key-vault';
import { openText } from '../domain/sealed-text';
import { openStartupScript } from '../domain/startup-script';
import { JOB_START_COMMAND_REF } from '../../workflows/contracts/jobs';

export const WRAPPER_PATH = join(__dirname, 'wrapper.sh');
let wrapper: string | null = null;
export const wrapperScript = (): string => (wrapper ??= readFileSync(WRAPPER_PATH, 'utf8'));

/** Single-quoted for sh: the text exactly, whatever it holds. */
export const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

export const hashExitToken = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();
export const newExitToken = (): string => `gjx_${randomBytes(32).toString('base64url')}`;

/** The associated data the env is sealed under: a sealed env opens only for its own job. */
export const envSealContext = (jobId: string): string => `job-env:${jobId}`;

/** The exit endpoint the wrapper reports to. */
export const exitUrl = (publicBaseUrl: string): string => `${publicBaseUrl.replace(/\/+$/, '')}/v1/jobs/exit`;
/** The endpoint the wrapper ships its tail to while the command runs. */
export const tailUrl = (publicBaseUrl: string): string => `${publicBaseUrl.replace(/\/+$/, '')}/v1/jobs/tail`;

/** The shell text an instance runs: env exports, then the wrapper under `sh` (POSIX; no bash needed). */
export function buildStartCommand(r: {
  command: string;
  env: Record<string, string>;
  token: string;
  exitUrl: string;
  /** Where the tail goes while the command runs; none: only the exit report carries it. */
  tailUrl?: string;
  /** Seconds between two shipped tails (the wrapper's default, 30, when absent). */
  tailIntervalSeconds?: number;
}): string {
  const lines = [
    ...Object.entries(r.env).map(([k, v]) => `export ${k}=${shellQuote(v)}`),
    `export GPUO_JOB_COMMAND=${shellQuote(r.command)}`,
    `export GPUO_EXIT_URL=${shellQuote(r.exitUrl)}`,
    `export GPUO_EXIT_TOKEN=${shellQuote(r.token)}`,
    ...(r.tailUrl === undefined ? [] : [`export GPUO_TAIL_URL=${shellQuote(r.tailUrl)}`]),
    ...(r.tailIntervalSeconds === undefined ? [] : [`export GPUO_TAIL_INTERVAL=${r.tailIntervalSeconds}`]),
    `sh -c ${shellQuote(wrapperScript())} gpuo-job-wrapper`,
  ];
  return lines.join('\n');
}

export interface JobStartDeps {
  jobs: Pick<JobQueries, 'findForWorkflow' | 'sealedEnv' | 'setAttemptToken'>;
  vault: Pick<KeyVault, 'open'>;
  publicBaseUrl: string;
  /** Seconds between the tails the wrapper ships while the command runs (its default, 30, when absent). */
  tailIntervalSeconds?: number;
}

/**
 * The start command for `onstartCmd` when it is an attempt's reference (a fresh token, its hash recorded on
 * the attempt, replacing one an earlier try of this create made); any other value is returned as it is.
 */
export async function resolveStartCommand(
  deps: JobStartDeps,
  onstartCmd: string | undefined,
): Promise<string | undefined> {
  const ref = onstartCmd === undefined ? null : JOB_START_COMMAND_REF.exec(onstartCmd);
  if (!ref) return onstartCmd;
  const [, jobId, n] = ref as unknown as [string, string, string];
  const job = await deps.jobs.findForWorkflow(jobId);
  if (!job) throw new Error(`job ${jobId} not found`);
  const sealed = await deps.jobs.sealedEnv(jobId);
  const env =
    sealed === null ? {} : (JSON.parse(openText(deps.vault, sealed, envSealContext(jobId))) as Record<string, string>);
  const token = newExitToken();
  await deps.jobs.setAttemptToken(jobId, Number(n), hashExitToken(token));
  // A schedule run's command is the schedule's startup script, sealed at rest: opened only here, for the create.
  const command = openStartupScript(deps.vault, job.account_id, job.spec.command);
  return buildStartCommand({
    command,
    env,
    token,
    exitUrl: exitUrl(deps.publicBaseUrl),
    tailUrl: tailUrl(deps.publicBaseUrl),
    tailIntervalSeconds: deps.tailIntervalSeconds,
  });
}
