/**
 * The text of the API's one `request` line per request (src/http/edge.ts, through `requestLogLine` in
 * src/logger.ts): the very bytes `logger.info('request', fields)` writes, made directly from few pieces.
 */

/** The fields of the one `request` line the API writes per request (src/http/edge.ts). */
export interface RequestLogFields {
  request_id: string;
  account_id: string | null;
  method: string;
  route: string;
  path: string;
  status: number;
  ms: number;
}

/** Printable ASCII other than `"` and `\\`: a string of only these is its own JSON text between quotes. */
const PLAIN = /^[ !#-[\]-~]*$/;
/** A string as JSON: quoted as is when plain (ids, most paths), through JSON.stringify otherwise. */
const json = (v: string | null): string => (v === null ? 'null' : PLAIN.test(v) ? '"' + v + '"' : JSON.stringify(v));
/**
 * `,"method":…,"route":…,"path":` per method and route (a closed set: the declared templates), made once;
 * bounded, in case they are not.
 */
const methodRoutes = new Map<string, Map<string, string>>();
const methodRoute = (method: string, route: string): string => {
  let byRoute = methodRoutes.get(method);
  if (byRoute === undefined) methodRoutes.set(method, (byRoute = new Map()));
  let out = byRoute.get(route);
  if (out === undefined) {
    out = `,"method":${JSON.stringify(method)},"route":${JSON.stringify(route)},"path":`;
    if (byRoute.size < 1_000 && methodRoutes.size < 100) byRoute.set(route, out);
  }
  return out;
};
const num = (v: number) => (Number.isFinite(v) ? String(v) : 'null');
/**
 * Durations (hundredths of a millisecond below 100 ms) and statuses repeat: each one's text is made once
 * (a double's conversion to text is the dearest part of a request line).
 */
const hundredths: string[] = [];
const ms = (v: number): string => {
  const h = Math.round(v * 100);
  return h >= 0 && h < 10_000 && h / 100 === v ? (hundredths[h] ??= String(v)) : num(v);
};
const statuses: string[] = [];
const status = (v: number): string =>
  v >= 100 && v < 600 && Number.isInteger(v) ? (statuses[v] ??= String(v)) : num(v);

/** The line's start up to the request id's value, per logger (bindings) and millisecond (time). */
let headTime = '';
let headBindings = '';
let head = '';

/**
 * The `request` line's text, newline included: what `logger.info('request', fields)` writes, made directly,
 * from few pieces (the head is made once per millisecond, method and route once): joining and encoding a line
 * of twenty pieces cost twice as much.
 */
export function requestLineText(time: string, bindings: string, f: RequestLogFields): string {
  if (time !== headTime || bindings !== headBindings) {
    headTime = time;
    headBindings = bindings;
    head = `{"level":"info"${time}${bindings},"request_id":`;
  }
  return (
    head +
    json(f.request_id) +
    ',"account_id":' +
    json(f.account_id) +
    methodRoute(f.method, f.route) +
    json(f.path) +
    ',"status":' +
    status(f.status) +
    ',"ms":' +
    ms(f.ms) +
    ',"msg":"request"}\n'
  );
}
