/**
 * The index's and the API's list: filtered, sorted and paged on the server, so a census of
 * thousands of servers reads a page at a time and works without any script in the browser.
 */
import type { ServerSummary } from "./model.js";

const PAGE_SIZE = 100;

export const SORTS = ["target", "status", "uptime24h", "uptime7d", "uptime30d", "p95", "lastChecked"] as const;
export type Sort = (typeof SORTS)[number];

export interface ListQuery {
  q: string;
  status: string;
  sort: Sort;
  desc: boolean;
  page: number;
}

/** The query a URL's search parameters ask for; anything unknown falls back to the default. */
export function listQuery(params: URLSearchParams): ListQuery {
  const sort = params.get("sort");
  const page = Number(params.get("page") ?? "1");
  return {
    q: (params.get("q") ?? "").slice(0, 200),
    status: (params.get("status") ?? "").slice(0, 40),
    sort: (SORTS as readonly string[]).includes(sort ?? "") ? (sort as Sort) : "target",
    desc: params.get("dir") === "desc",
    page: Number.isSafeInteger(page) && page >= 1 ? page : 1,
  };
}

/** The same query as search parameters, with `over` changed (for links). */
export function queryString(q: ListQuery, over: Partial<ListQuery> = {}): string {
  const x = { ...q, ...over };
  const p = new URLSearchParams();
  if (x.q) p.set("q", x.q);
  if (x.status) p.set("status", x.status);
  if (x.sort !== "target") p.set("sort", x.sort);
  if (x.desc) p.set("dir", "desc");
  if (x.page > 1) p.set("page", String(x.page));
  const s = p.toString();
  return s ? `?${s}` : "";
}

const key: Record<Sort, (s: ServerSummary) => string | number | null> = {
  target: (s) => s.target,
  status: (s) => s.status,
  uptime24h: (s) => s.windows["24h"].uptimePct,
  uptime7d: (s) => s.windows["7d"].uptimePct,
  uptime30d: (s) => s.windows["30d"].uptimePct,
  p95: (s) => s.windows["24h"].p95LatencyMs,
  lastChecked: (s) => s.lastChecked,
};

/** Code-point order: the same on every machine, and many times faster than a locale's collation. */
const byTarget = (a: ServerSummary, b: ServerSummary) => (a.target < b.target ? -1 : a.target > b.target ? 1 : 0);

/** Servers with no value for the key (no attempt in the window) go last, whichever the direction. */
function compare(sort: Sort, desc: boolean) {
  const k = key[sort];
  return (a: ServerSummary, b: ServerSummary): number => {
    const x = k(a);
    const y = k(b);
    if (x === null || y === null) return x === y ? byTarget(a, b) : x === null ? 1 : -1;
    const c = x < y ? -1 : x > y ? 1 : 0;
    return (desc ? -c : c) || byTarget(a, b);
  };
}

/** Each list's orders, sorted once per list (the model hands out the same list until it changes). */
const sortedOf = new WeakMap<readonly ServerSummary[], Map<string, ServerSummary[]>>();

function sorted(all: readonly ServerSummary[], sort: Sort, desc: boolean): readonly ServerSummary[] {
  let orders = sortedOf.get(all);
  if (!orders) sortedOf.set(all, (orders = new Map()));
  const key = `${sort} ${desc}`;
  let order = orders.get(key);
  if (!order) orders.set(key, (order = [...all].sort(compare(sort, desc))));
  return order;
}

export interface Listed {
  servers: readonly ServerSummary[];
  /** Servers that matched the filter, on every page. */
  total: number;
  page: number;
  pages: number;
}

export function list(all: readonly ServerSummary[], q: ListQuery): Listed {
  const needle = q.q.toLowerCase();
  const order = sorted(all, q.sort, q.desc);
  const matched =
    !q.status && !needle
      ? order
      : order.filter(
          (s) =>
            (!q.status || s.status === q.status) &&
            (!needle || s.target.toLowerCase().includes(needle) || (s.serverName ?? "").toLowerCase().includes(needle)),
        );
  const pages = Math.max(1, Math.ceil(matched.length / PAGE_SIZE));
  const page = Math.min(q.page, pages);
  return { servers: matched.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE), total: matched.length, page, pages };
}
