/**
 * The fault knobs of a simulator over HTTP, under {@link CONTROL_PREFIX} on the simulator's own server, so a
 * black-box test, a benchmark or a demo of the local stack can turn them without holding the `control` object:
 *
 *   POST /_sim/instances/{id}/preempt   {"how"?: "stopped" | "exited" | "remove"}   (how: Vast only)
 *   PUT  /_sim/capacity/{gpu}           {"available": false, "status"?, "mode"?, "region"?}
 *   PUT  /_sim/latency                  {"ms": 4000, "method"?, "path"?, "after_handling"?}
 *   PUT  /_sim/boot-delay               {"ms": 5000}
 *   POST /_sim/server-errors            {"count": 2, "status"?, "method"?, "path"?, "after_handling"?}
 *   POST /_sim/rate-limits              {"count": 3, "retry_after_seconds"?, "method"?, "path"?}
 *   POST /_sim/reset
 *   GET  /_sim/instances                every account's instances (no env, no keys)
 *
 * `path` is a regular expression matched against the request path (`^/api/v0/asks/`). A knob answers 204; a
 * body that does not fit answers 400 and an unknown instance 404, both with `{"error": …}`. These paths bypass
 * the knobs themselves: a slowed or failing simulator still takes the request that clears it.
 */
import { z } from 'zod';
import { CONTROL_PREFIX, type CommonControl, type RequestMatch, type SimResponse, type SimServer } from './kit';
import type { SimInstanceView } from './sim-handle';

const matchFields = {
  method: z.string().min(1).optional(),
  path: z
    .string()
    .min(1)
    .refine(
      (p) => {
        try {
          new RegExp(p);
          return true;
        } catch {
          return false;
        }
      },
      { message: 'not a regular expression' },
    )
    .optional(),
};

const bodies = {
  preempt: z.object({ how: z.string().optional() }).strict(),
  capacity: z
    .object({
      available: z.boolean(),
      status: z.union([z.literal(400), z.literal(500)]).optional(),
      mode: z.enum(['hidden', 'unavailable']).optional(),
      region: z.string().min(1).optional(),
    })
    .strict(),
  latency: z
    .object({ ms: z.number().int().min(0).max(600_000), after_handling: z.boolean().optional(), ...matchFields })
    .strict(),
  bootDelay: z.object({ ms: z.number().int().min(0).max(3_600_000) }).strict(),
  serverErrors: z
    .object({
      count: z.number().int().min(1).max(10_000),
      status: z.number().int().min(500).max(599).optional(),
      after_handling: z.boolean().optional(),
      ...matchFields,
    })
    .strict(),
  rateLimits: z
    .object({
      count: z.number().int().min(1).max(10_000),
      retry_after_seconds: z.number().int().min(0).nullable().optional(),
      ...matchFields,
    })
    .strict(),
};

const noContent: SimResponse = { status: 204 };
const error = (status: number, message: string): SimResponse => ({ status, body: { error: message } });

function match(b: { method?: string; path?: string }): RequestMatch | undefined {
  if (!b.method && !b.path) return undefined;
  return { method: b.method, path: b.path === undefined ? undefined : new RegExp(b.path) };
}

/** What the routes need of the simulator besides its `control`: its accounts' instances. */
export interface ControlTarget {
  control: CommonControl;
  /** Every key the simulator knows. */
  keys(): Iterable<string>;
}

/** Parses `body` with `schema` and runs `turn`, or answers the 400 (or the knob's own refusal) instead. */
function knob<T>(schema: z.ZodType<T>, body: unknown, turn: (b: T) => SimResponse | void): SimResponse {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return error(400, `${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  try {
    return turn(parsed.data) ?? noContent;
  } catch (err) {
    return error(400, err instanceof Error ? err.message : String(err));
  }
}

function viewJson(v: SimInstanceView) {
  return {
    id: v.id,
    name: v.name,
    status: v.status,
    gpu: v.gpu,
    gpu_count: v.gpuCount,
    spot: v.spot,
    region: v.region,
    created_at: v.createdAt,
  };
}

export function serveControl(server: SimServer, target: ControlTarget): void {
  const { control } = target;
  const at = (path: string) => `${CONTROL_PREFIX}${path}`;
  const keyOf = (id: string) => [...target.keys()].find((k) => control.instances(k).some((i) => i.id === id));

  server.controlRoute('GET', at('/instances'), () => ({
    status: 200,
    body: { instances: [...target.keys()].flatMap((k) => control.instances(k).map(viewJson)) },
  }));
  server.controlRoute('POST', at('/instances/:id/preempt'), (req) => {
    const key = keyOf(req.params.id!);
    if (key === undefined) return error(404, `no instance ${req.params.id}`);
    return knob(bodies.preempt, req.body, (b) => control.preempt(key, req.params.id!, b.how));
  });
  server.controlRoute('PUT', at('/capacity/:gpu'), (req) =>
    knob(bodies.capacity, req.body, ({ available, ...opts }) =>
      (control.setNoCapacity as (gpu: string, on: boolean, o: object) => void)(req.params.gpu!, !available, opts),
    ),
  );
  server.controlRoute('PUT', at('/latency'), (req) =>
    knob(bodies.latency, req.body, (b) =>
      control.setLatency(b.ms, { match: match(b), afterHandling: b.after_handling }),
    ),
  );
  server.controlRoute('PUT', at('/boot-delay'), (req) =>
    knob(bodies.bootDelay, req.body, (b) => control.setBootDelay(b.ms)),
  );
  server.controlRoute('POST', at('/server-errors'), (req) =>
    knob(bodies.serverErrors, req.body, (b) =>
      control.serverErrors(b.count, { match: match(b), status: b.status, afterHandling: b.after_handling }),
    ),
  );
  server.controlRoute('POST', at('/rate-limits'), (req) =>
    knob(bodies.rateLimits, req.body, (b) =>
      control.rateLimit(b.count, { match: match(b), retryAfterSeconds: b.retry_after_seconds }),
    ),
  );
  server.controlRoute('POST', at('/reset'), () => {
    control.reset();
    return noContent;
  });
}
