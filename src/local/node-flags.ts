/**
 * V8 flags the API and worker processes run with, wherever they run: `npm start` (its children), the
 * `start:*` scripts, the Docker image (`NODE_OPTIONS`), the tests' child processes and `bench:launch`.
 *
 * `--max-semi-space-size=64` (MB; Node 20's default is 16): both processes allocate a lot of short-lived
 * objects per request and per workflow activation (protobuf, JSON, rows), and a young generation 4 times as
 * large is scavenged a quarter as often. In `bench:launch` the main thread's CPU per launch fell by about 7 %
 * relative to the Temporal server's in the same runs (docs/performance.md). It costs at most 3 × 48 MB more
 * memory per isolate (the workflow thread has its own).
 */
export const NODE_FLAGS = ['--max-semi-space-size=64'] as const;
