/**
 * The routes of the HTTP+JSON binding (A2A v1.0 §11.3, the proto's `google.api.http` options): each
 * operation's verb and path template below the interface URL, and each one again under a `/{tenant}`
 * prefix (the proto's additional bindings). A path is matched without a tenant first, so a tenant
 * named like a route word (`tasks`) is read as the route. SubscribeToTask takes GET (the proto) and
 * POST (§11.3.2's text).
 *
 * Parameters bound by the path (`id`, `taskId`, `tenant`), then the query's (§11.5: camelCase names,
 * numbers in decimal, booleans as `true`/`false`), then the body (`body: "*"` routes).
 */

/** One segment of a path template: a literal, or a path parameter (its neutral field name). */
type Segment = { lit: string } | { param: 'id' | 'taskId' };

export interface Route {
  op: string;
  verbs: readonly string[];
  /** The template as the proto spells it (without the tenant prefix), for the transcript's `wireMethod`. */
  template: string;
  segments: readonly Segment[];
  /** A custom verb after the last segment (`:cancel`), as in the template. */
  suffix?: string;
  /** The route takes the request body (`body: "*"`). */
  body: boolean;
  /** The query parameters it reads and their types (§11.5). */
  query?: Readonly<Record<string, 'string' | 'int' | 'bool'>>;
}

const lit = (l: string): Segment => ({ lit: l });
const ID: Segment = { param: 'id' };
const TASK_ID: Segment = { param: 'taskId' };
const CONFIGS = lit('pushNotificationConfigs');

export const ROUTES: readonly Route[] = [
  { op: 'SendMessage', verbs: ['POST'], template: '/message:send', segments: [lit('message:send')], body: true },
  { op: 'SendStreamingMessage', verbs: ['POST'], template: '/message:stream', segments: [lit('message:stream')], body: true },
  {
    op: 'ListTasks',
    verbs: ['GET'],
    template: '/tasks',
    segments: [lit('tasks')],
    body: false,
    query: {
      contextId: 'string',
      status: 'string',
      pageSize: 'int',
      pageToken: 'string',
      historyLength: 'int',
      statusTimestampAfter: 'string',
      includeArtifacts: 'bool',
    },
  },
  { op: 'GetTask', verbs: ['GET'], template: '/tasks/{id}', segments: [lit('tasks'), ID], body: false, query: { historyLength: 'int' } },
  { op: 'CancelTask', verbs: ['POST'], template: '/tasks/{id}:cancel', segments: [lit('tasks'), ID], suffix: 'cancel', body: true },
  { op: 'SubscribeToTask', verbs: ['GET', 'POST'], template: '/tasks/{id}:subscribe', segments: [lit('tasks'), ID], suffix: 'subscribe', body: true },
  {
    op: 'CreateTaskPushNotificationConfig',
    verbs: ['POST'],
    template: '/tasks/{taskId}/pushNotificationConfigs',
    segments: [lit('tasks'), TASK_ID, CONFIGS],
    body: true,
  },
  {
    op: 'ListTaskPushNotificationConfigs',
    verbs: ['GET'],
    template: '/tasks/{taskId}/pushNotificationConfigs',
    segments: [lit('tasks'), TASK_ID, CONFIGS],
    body: false,
    query: { pageSize: 'int', pageToken: 'string' },
  },
  {
    op: 'GetTaskPushNotificationConfig',
    verbs: ['GET'],
    template: '/tasks/{taskId}/pushNotificationConfigs/{id}',
    segments: [lit('tasks'), TASK_ID, CONFIGS, ID],
    body: false,
  },
  {
    op: 'DeleteTaskPushNotificationConfig',
    verbs: ['DELETE'],
    template: '/tasks/{taskId}/pushNotificationConfigs/{id}',
    segments: [lit('tasks'), TASK_ID, CONFIGS, ID],
    body: false,
  },
  { op: 'GetExtendedAgentCard', verbs: ['GET'], template: '/extendedAgentCard', segments: [lit('extendedAgentCard')], body: false },
];

/** A path matched to a route: the route, the parameters its path binds, and the spelling of the template it matched. */
export interface Matched {
  route: Route;
  bound: Record<string, string>;
  wireMethod: string;
}

/** A path below the interface URL, as the routes see it: its raw segments (a leading slash or none), or undefined where a segment does not decode. */
export function segmentsOf(below: string): string[] | undefined {
  const raw = below.replace(/^\/+/, '').split('/');
  try {
    for (const s of raw) decodeURIComponent(s);
  } catch {
    return undefined;
  }
  return raw;
}

/** Binds `raw` (still percent-encoded) against a route's segments, or undefined. */
function bind(route: Route, raw: readonly string[]): Record<string, string> | undefined {
  if (raw.length !== route.segments.length) return undefined;
  const bound: Record<string, string> = {};
  for (let i = 0; i < raw.length; i++) {
    const seg = route.segments[i]!;
    let piece = raw[i]!;
    // The custom verb is the last segment's tail (an id may itself hold a colon: only the route's own verb is cut).
    if (i === raw.length - 1 && route.suffix !== undefined) {
      if (!piece.endsWith(`:${route.suffix}`)) return undefined;
      piece = piece.slice(0, -(route.suffix.length + 1));
    } else if (i === raw.length - 1 && 'param' in seg && /:(cancel|subscribe)$/.test(piece)) return undefined;
    if ('lit' in seg) {
      if (piece !== seg.lit) return undefined;
    } else {
      const value = decodeURIComponent(piece);
      if (value === '') return undefined;
      bound[seg.param] = value;
    }
  }
  return bound;
}

/** The routes whose path matches: first without a tenant, then with the first segment as the tenant. */
export function routesAt(raw: readonly string[]): Matched[] {
  const plain = ROUTES.flatMap((route) => {
    const bound = bind(route, raw);
    return bound ? [{ route, bound, wireMethod: route.template }] : [];
  });
  if (plain.length > 0 || raw.length < 2) return plain;
  const tenant = decodeURIComponent(raw[0]!);
  if (tenant === '') return [];
  return ROUTES.flatMap((route) => {
    const bound = bind(route, raw.slice(1));
    return bound ? [{ route, bound: { ...bound, tenant }, wireMethod: `/{tenant}${route.template}` }] : [];
  });
}

/** The query parameters a route reads, typed (§11.5), or the name of the first that is not of its type. */
export function queryParams(route: Route, query: URLSearchParams): { params: Record<string, unknown> } | { bad: string } {
  const params: Record<string, unknown> = {};
  for (const [name, type] of Object.entries(route.query ?? {})) {
    const v = query.get(name);
    if (v === null) continue;
    if (type === 'string') params[name] = v;
    else if (type === 'int') {
      if (!/^-?\d{1,10}$/.test(v.trim())) return { bad: `${name} must be a decimal integer, not ${JSON.stringify(v.slice(0, 40))}` };
      params[name] = Number(v.trim());
    } else {
      if (v !== 'true' && v !== 'false') return { bad: `${name} must be true or false, not ${JSON.stringify(v.slice(0, 40))}` };
      params[name] = v === 'true';
    }
  }
  return { params };
}
