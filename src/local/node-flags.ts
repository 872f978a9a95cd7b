/**
 * V8 flags the API and worker processes run with, wherever they run: `npm start` (its children), the
 * `start:*` scripts, the Docker image (`NODE_OPTIONS`), the tests' child processes and the launch benchmark.
 *
 * `--max-semi-space-size=64` (MB; Node 20's default is 16): both processes allocate a lot of short-lived
 * objects per request and per workflow activation (protobuf, JSON, rows), and a young generation 4 times as
 * large is scavenged a quarter as often: under sustained launches the main thread spends about 7 % less CPU
 * per launch. It costs at most 3 × 48 MB more
 * memory per isolate (the workflow thread has its own).
 */
export const NODE_FLAGS = ['--max-semi-space-size=64'] as const;
