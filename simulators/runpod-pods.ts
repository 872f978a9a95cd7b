/** How the RunPod simulator shows a pod: its status over time, its price, and its JSON and neutral view. */
import { isoSeconds, now, testIp, type SimInstanceView } from './kit';
import { type PodState } from './runpod-model';

export function podView(pod: PodState): SimInstanceView {
  return {
    id: pod.id,
    name: pod.name,
    status: podStatus(pod),
    gpu: pod.gpu.id,
    gpuCount: pod.gpuCount,
    spot: pod.interruptible,
    region: pod.dataCenterId,
    image: pod.image,
    env: { ...pod.env },
    sshKeys: pod.env.PUBLIC_KEY ? pod.env.PUBLIC_KEY.split('\n').filter(Boolean) : [],
    createdAt: new Date(pod.createdAt).toISOString(),
  };
}

export function podStatus(pod: PodState): 'PROVISIONING' | 'STARTING' | 'RUNNING' | 'EXITED' | 'ERROR' {
  if (pod.phase === 'exited') return 'EXITED';
  if (pod.phase === 'error') return 'ERROR';
  const elapsed = now() - pod.bootStart;
  if (elapsed >= pod.bootDelay) return 'RUNNING';
  return elapsed < pod.bootDelay / 2 ? 'PROVISIONING' : 'STARTING';
}

export function podJson(pod: PodState): Record<string, unknown> {
  const status = podStatus(pod);
  const ip = testIp(pod.ipIndex);
  const running = status === 'RUNNING';
  const assigned = status !== 'PROVISIONING';
  const proxy = assigned
    ? {
        host: 'ssh.runpod.io',
        port: 22,
        username: `${pod.id}-64411eb2`,
        command: `ssh ${pod.id}-64411eb2@ssh.runpod.io`,
      }
    : null;
  const direct =
    running && pod.ports.includes('22/tcp')
      ? { host: ip, port: pod.sshPort, username: 'root', command: `ssh root@${ip} -p ${pod.sshPort}` }
      : null;
  const runningSince = pod.bootStart + pod.bootDelay;
  const body: Record<string, unknown> = {
    id: pod.id,
    name: pod.name,
    image: pod.image,
    args: pod.args,
    disk: pod.disk,
    ports: pod.ports,
    env: pod.env,
    registry: null,
    status,
    actions:
      status === 'RUNNING'
        ? ['stop', 'restart', 'terminate']
        : status === 'EXITED' || status === 'ERROR'
          ? ['start', 'terminate']
          : ['stop', 'terminate'],
    mounts: pod.mounts,
    gpu: { id: pod.gpu.id, count: pod.gpuCount },
    cloud: pod.cloud,
    dataCenterId: pod.dataCenterId,
    cudaVersion: assigned ? '12.8' : null,
    ssh: { proxy, direct },
    template: null,
    cost: status === 'EXITED' || status === 'ERROR' ? 0 : podPrice(pod),
    locked: false,
    globalNetworking: { enabled: false },
    runtime: running
      ? {
          uptime: Math.max(0, Math.floor((now() - runningSince) / 1000)),
          gpus: Array.from({ length: pod.gpuCount }, (_, n) => ({
            id: `GPU-${pod.id}-${n}`,
            gpuUtilPercent: pod.gpuUtil ?? 0,
            memoryUtilPercent: 0,
          })),
          ports: pod.ports.map((port) => {
            const [num, type] = port.split('/');
            const priv = Number(num);
            return priv === 22
              ? { private: 22, public: pod.sshPort, type: type ?? 'tcp', ip }
              : { private: priv, public: null, type: type ?? 'http', ip: null };
          }),
        }
      : null,
    createdAt: isoSeconds(pod.createdAt),
    startedAt: running ? isoSeconds(runningSince) : null,
  };
  if (pod.interruptible) body.interruptible = true;
  return body;
}

export function podPrice(pod: PodState): number {
  const perGpu = pod.cloud === 'COMMUNITY' ? pod.gpu.community : pod.securePrice;
  return Math.round(perGpu * pod.gpuCount * 1000) / 1000;
}
