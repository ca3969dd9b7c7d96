import { GraphQLError } from 'graphql';

/**
 * Relay connections as Shopify serves them: `first`/`after` or `last`/`before` (one of first/last is
 * required, at most 250), opaque cursors, `edges`, `nodes` and `pageInfo`. Cursors are keyset positions
 * (the sort value and the id), so a page stays correct while earlier rows change.
 */
export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  reverse?: boolean | null;
}

type Key = (string | number)[];

const encode = (key: Key) => Buffer.from(JSON.stringify({ k: key })).toString('base64url');

function decode(cursor: string): Key {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { k?: unknown };
    if (Array.isArray(parsed.k)) return parsed.k as Key;
  } catch {
    // fall through
  }
  throw new GraphQLError(`Invalid cursor for current pagination sort.`, { extensions: { code: 'BAD_REQUEST' } });
}

function cmp(a: Key, b: Key): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}

export const MAX_PAGE = 250;

export function checkPageArgs(args: ConnectionArgs) {
  if (args.first == null && args.last == null)
    throw new GraphQLError('you must provide one of first or last', { extensions: { code: 'BAD_REQUEST' } });
  for (const name of ['first', 'last'] as const) {
    const n = args[name];
    if (n != null && (n < 0 || n > MAX_PAGE))
      throw new GraphQLError(`The ${name} argument must be between 0 and ${MAX_PAGE}.`, {
        extensions: { code: 'BAD_REQUEST' },
      });
  }
}

export function connection<T>(all: T[], key: (item: T) => Key, args: ConnectionArgs, view: (item: T) => unknown) {
  checkPageArgs(args);
  const sorted = all.map((item) => ({ item, key: key(item) })).sort((a, b) => cmp(a.key, b.key));
  if (args.reverse) sorted.reverse();
  const direction = args.reverse ? -1 : 1;
  let slice = sorted;
  if (args.after) {
    const after = decode(args.after);
    slice = slice.filter((e) => cmp(e.key, after) * direction > 0);
  }
  if (args.before) {
    const before = decode(args.before);
    slice = slice.filter((e) => cmp(e.key, before) * direction < 0);
  }
  let hasNextPage = false;
  let hasPreviousPage = false;
  if (args.first != null) {
    hasNextPage = slice.length > args.first;
    slice = slice.slice(0, args.first);
    hasPreviousPage = !!args.after && sorted.length > 0 && slice[0] !== sorted[0];
  } else if (args.last != null) {
    hasPreviousPage = slice.length > args.last;
    slice = slice.slice(Math.max(0, slice.length - args.last));
    hasNextPage = !!args.before;
  }
  const edges = slice.map((e) => ({ cursor: encode(e.key), node: view(e.item) }));
  return {
    edges,
    nodes: edges.map((e) => e.node),
    pageInfo: {
      hasNextPage,
      hasPreviousPage,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
  };
}
