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
import type { ProviderId } from '../providers/types';
import { JOB_START_COMMAND_REF } from '../../workflows/contracts/jobs';
import { JOB_PROVIDERS_ON_A_VM } from './providers';

export const WRAPPER_PATH = join(__dirname, 'wrapper.sh');
let wrapper: string | null = null;
export const wrapperScript = (): string => (wrapper ??= readFileSync(WRAPPER_PATH, 'utf8'));

/** Single-quoted for sh: the text exactly, whatever it holds. */
export const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

export const hashExitToken = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();
export const newExitToken = (): string => `gjx_${randomBytes(32).toString('base64url')}`;

/** The associated data the env is sealed under: a sealed env opens only for its own job. */
export const envSealContext = (jobId: string): string => `job-env:${jobId}`;

const endpoint = (publicBaseUrl: string, path: string): string => `${publicBaseUrl.replace(/\/+$/, '')}${path}`;
/** The exit endpoint the wrapper reports to. */
export const exitUrl = (publicBaseUrl: string): string => endpoint(publicBaseUrl, '/v1/jobs/exit');
/** The endpoint the wrapper ships its tail to while the command runs. */
export const tailUrl = (publicBaseUrl: string): string => endpoint(publicBaseUrl, '/v1/jobs/tail');

/** What an env name must be to be exported and passed on by name (the jobs route refuses any other). */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** How long the command waits for a VM's Docker daemon to answer before `docker run` is tried anyway. */
const DOCKER_DAEMON_WAIT_SECONDS = 120;

/**
 * `command` run in `image` by Docker on a VM, as shell text for the wrapper's `sh -c`: the image is pulled by
 * `docker run` when it is not there, every GPU is given to it, and it shares the VM's network. The env goes by
 * name only (`-e NAME` takes the value from the environment the wrapper exported), so no value is in any
 * process's arguments. `--entrypoint sh` runs the command whatever the image's own entrypoint is (the vLLM and
 * Ollama templates have one that would take `sh -c` as its arguments); `--` ends Docker's options, so an image
 * reference can never be read as one. The exit code is the container's; Docker's own failures are its 125 (the
 * pull or the start failed, or the daemon never answered), and a VM without docker is the shell's 127.
 */
function dockerRunCommand(r: { image: string; command: string; envNames: readonly string[] }): string {
  const run = [
    'docker run --rm --gpus all --network host',
    ...r.envNames.map((name) => `-e ${name}`),
    `--entrypoint sh -- ${shellQuote(r.image)} -c ${shellQuote(r.command)}`,
  ].join(' ');
  // cloud-init may run the script before the Docker daemon is up: wait for it, a bounded while (a VM without
  // docker goes on at once, to the shell's 127).
  const wait =
    'gpuo_waited=0; while command -v docker >/dev/null 2>&1 && ! docker info >/dev/null 2>&1 && ' +
    `[ "$gpuo_waited" -lt ${DOCKER_DAEMON_WAIT_SECONDS} ]; do sleep 1; gpuo_waited=$((gpuo_waited + 1)); done`;
  return `${wait}\n${run}`;
}

/**
 * The shell text an instance runs: env exports, then the wrapper under `sh` (POSIX; no bash needed). With
 * `image`, the wrapper runs on the VM and the command in that image (`dockerRunCommand`).
 */
export function buildStartCommand(r: {
  command: string;
  env: Record<string, string>;
  /** Where the instance is a VM rather than the job's container: the image the command runs in, with Docker. */
  image?: string;
  token: string;
  exitUrl: string;
  /** Where the tail goes while the command runs; none: only the exit report carries it. */
  tailUrl?: string;
  /** Seconds between two shipped tails (the wrapper's default, 30, when absent). */
  tailIntervalSeconds?: number;
}): string {
  // Checked once for both uses: `export NAME=…` and Docker's `-e NAME`.
  for (const name of Object.keys(r.env)) if (!ENV_NAME.test(name)) throw new Error(`not an env name: ${name}`);
  const command =
    r.image === undefined
      ? r.command
      : dockerRunCommand({ image: r.image, command: r.command, envNames: Object.keys(r.env) });
  const lines = [
    ...Object.entries(r.env).map(([k, v]) => `export ${k}=${shellQuote(v)}`),
    `export GPUO_JOB_COMMAND=${shellQuote(command)}`,
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
 * the attempt, replacing one an earlier try of this create made); any other value is returned as it is. On a
 * provider whose instance is a VM (`JOB_PROVIDERS_ON_A_VM`), the command runs in the launch's image.
 */
export async function resolveStartCommand(
  deps: JobStartDeps,
  onstartCmd: string | undefined,
  launch: { provider: ProviderId; dockerImage?: string },
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
  const image = JOB_PROVIDERS_ON_A_VM.includes(launch.provider) ? launch.dockerImage : undefined;
  return buildStartCommand({
    command,
    env,
    ...(image === undefined ? {} : { image }),
    token,
    exitUrl: exitUrl(deps.publicBaseUrl),
    tailUrl: tailUrl(deps.publicBaseUrl),
    tailIntervalSeconds: deps.tailIntervalSeconds,
  });
}
