import { readFileSync } from 'node:fs';
import net from 'node:net';

/**
 * Ports handed to services a test starts by number (a stack restarted on the same ports, a child told its
 * port). They come from below the kernel's ephemeral range: a port from `listen(0)` or an outgoing
 * connection's local port is never one of them, so a port a stopped service released cannot be taken by
 * another test's connection before the service starts on it again. Each jest worker draws from its own
 * slice of the range, so two workers never hand out the same port.
 */
const EPHEMERAL_LOW = (() => {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return 32768;
  }
})();
const RANGE_LOW = 10_000;
const RANGE_HIGH = Math.max(RANGE_LOW + 4_000, Math.min(EPHEMERAL_LOW, 32_768));
const SLICES = 8;
const sliceSize = Math.floor((RANGE_HIGH - RANGE_LOW) / SLICES);
const slice = (Number(process.env.JEST_WORKER_ID ?? process.pid % SLICES) - 1 + SLICES) % SLICES;
const handedOut = new Set<number>();

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A TCP port on 127.0.0.1, outside the ephemeral range, that was free a moment ago and not handed out before. */
export async function freePort(): Promise<number> {
  const start = RANGE_LOW + slice * sliceSize;
  for (let tries = 0; tries < 200; tries++) {
    const port = start + Math.floor(Math.random() * sliceSize);
    if (handedOut.has(port)) continue;
    if (await canListen(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port in ${start}..${start + sliceSize - 1}`);
}
