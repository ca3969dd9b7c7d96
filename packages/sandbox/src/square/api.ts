import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxContext } from '../context.ts';
import { type CatalogObject, invalid, type Json, type Order, SquareError } from './model.ts';
import type { Merchant } from './state.ts';
import type { SquareStore } from './store.ts';

/**
 * Square's per-seller request budget. Square does not publish its limits; these keep a well-behaved client
 * (one that backs off on 429) comfortably inside and a flood outside.
 */
const BURST = 40;
const PER_SECOND = 20;
const CATALOG_PAGE = 100;
/** How long a catalog write holds the seller's catalog (Square applies writes one at a time). */
const CATALOG_WRITE_MS = 50;
const IDEMPOTENCY_KEYS_KEPT = 2000;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The OAuth permission a Square endpoint needs. */
    squareScope?: string;
  }
  interface FastifyRequest {
    squareMerchant?: Merchant;
  }
}

const merchantOf = (req: FastifyRequest) => req.squareMerchant as Merchant;

function encodeCursor(offset: number, fingerprint: string) {
  return Buffer.from(JSON.stringify({ o: offset, f: fingerprint })).toString('base64url');
}

function decodeCursor(cursor: unknown, fingerprint: string): number {
  if (cursor === undefined || cursor === null || cursor === '') return 0;
  try {
    const parsed = JSON.parse(Buffer.from(String(cursor), 'base64url').toString('utf8')) as { o: unknown; f: unknown };
    if (typeof parsed.o === 'number' && parsed.o >= 0 && parsed.f === fingerprint) return parsed.o;
  } catch {
    // fall through
  }
  throw invalid('INVALID_CURSOR', 'The pagination cursor is not valid for this request.', 'cursor');
}

function page<T>(list: T[], offset: number, limit: number, fingerprint: string) {
  const items = list.slice(offset, offset + limit);
  const next = offset + limit < list.length ? encodeCursor(offset + limit, fingerprint) : undefined;
  return { items, cursor: next };
}

function limitOf(value: unknown, fallback: number, max: number, field = 'limit'): number {
  if (value === undefined || value === null) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw invalid('INVALID_VALUE', `\`${field}\` must be a positive integer.`, field);
  return Math.min(n, max);
}

function arrayOf(value: unknown, field: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw invalid('EXPECTED_ARRAY', `\`${field}\` must be an array.`, field);
  return value.map(String);
}

function requireKey(body: Json): string {
  const key = body.idempotency_key;
  if (typeof key !== 'string' || key.length === 0) {
    throw invalid('MISSING_REQUIRED_PARAMETER', 'Missing required parameter.', 'idempotency_key');
  }
  if (key.length > 192) throw invalid('VALUE_TOO_LONG', 'idempotency_key is too long.', 'idempotency_key');
  return key;
}

/** Runs a write once per idempotency key: a retry with the same body gets the first answer again. */
function once(merchant: Merchant, endpoint: string, body: Json, run: () => unknown): unknown {
  const key = `${endpoint}:${requireKey(body)}`;
  const fingerprint = JSON.stringify(body);
  const seen = merchant.idempotency.get(key);
  if (seen) {
    if (seen.fingerprint !== fingerprint) {
      throw invalid(
        'IDEMPOTENCY_KEY_REUSED',
        'The idempotency key was used with different parameters.',
        'idempotency_key',
      );
    }
    return seen.body;
  }
  const result = run();
  merchant.idempotency.set(key, { fingerprint, body: result });
  // Square keeps keys for a while, not forever: the oldest go first.
  if (merchant.idempotency.size > IDEMPOTENCY_KEYS_KEPT) {
    merchant.idempotency.delete(merchant.idempotency.keys().next().value as string);
  }
  return result;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Only one catalog write per seller at a time; a concurrent one is refused with a 429 like Square does. */
async function catalogWrite<T>(merchant: Merchant, run: () => T): Promise<T> {
  if (merchant.catalogWriteBusy) {
    throw new SquareError(
      429,
      'RATE_LIMIT_ERROR',
      'RATE_LIMITED',
      'Another catalog write is in progress for this seller.',
    );
  }
  merchant.catalogWriteBusy = true;
  try {
    await sleep(CATALOG_WRITE_MS);
    return run();
  } finally {
    merchant.catalogWriteBusy = false;
  }
}

function timeOf(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  const t = Date.parse(String(value));
  if (Number.isNaN(t)) throw invalid('INVALID_TIME', `\`${field}\` is not an RFC 3339 timestamp.`, field);
  return t;
}

/**
 * Draws the seller's injected fault: a 429 RATE_LIMITED with Retry-After or a 503 (thrown, rendered in
 * Square's shape), or a request that hangs and is then dropped (answers true: the reply is taken over).
 */
export async function injectFault(
  ctx: SandboxContext,
  merchantId: string,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<boolean> {
  const fault = await ctx.faults.draw('square', merchantId);
  if (fault === 'throttle') {
    reply.header('retry-after', '1');
    throw new SquareError(429, 'RATE_LIMIT_ERROR', 'RATE_LIMITED', 'Rate limit exceeded.');
  }
  if (fault === 'error') throw new SquareError(503, 'API_ERROR', 'SERVICE_UNAVAILABLE', 'Service unavailable.');
  if (fault === 'timeout') {
    const { timeoutMs } = ctx.faults.get('square', merchantId);
    reply.hijack();
    await sleep(timeoutMs);
    req.raw.socket.destroy();
    return true;
  }
  return false;
}

/** Square's Connect v2 subset the connector uses, for one environment's sellers. */
export function apiRoutes(app: FastifyInstance, store: SquareStore, ctx: SandboxContext) {
  app.decorateRequest('squareMerchant', undefined);
  app.addHook('onRequest', async (req, reply) => {
    const version = req.headers['square-version'];
    if (typeof version === 'string') {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(version)) {
        throw invalid('INVALID_SQUARE_VERSION_FORMAT', 'Square-Version must look like 2025-08-20.', 'Square-Version');
      }
      reply.header('square-version', version);
    }
    const header = req.headers.authorization ?? '';
    if (!header.startsWith('Bearer ')) {
      throw new SquareError(
        401,
        'AUTHENTICATION_ERROR',
        'UNAUTHORIZED',
        'The `Authorization` http header of your request was malformed. The header value is expected to be of the format "Bearer TOKEN" (without quotation marks).',
      );
    }
    const token = store.tokens.get(header.slice(7));
    if (!token)
      throw new SquareError(401, 'AUTHENTICATION_ERROR', 'UNAUTHORIZED', 'This request could not be authorized.');
    if (token.revoked)
      throw new SquareError(401, 'AUTHENTICATION_ERROR', 'ACCESS_TOKEN_REVOKED', 'The access token has been revoked.');
    if (token.expiresAt < Date.now())
      throw new SquareError(401, 'AUTHENTICATION_ERROR', 'ACCESS_TOKEN_EXPIRED', 'The access token has expired.');
    const merchant = store.merchants.get(token.merchantId);
    if (!merchant)
      throw new SquareError(401, 'AUTHENTICATION_ERROR', 'UNAUTHORIZED', 'This request could not be authorized.');
    const needed = req.routeOptions.config?.squareScope;
    if (needed && !token.scopes.includes(needed)) {
      throw new SquareError(
        403,
        'AUTHENTICATION_ERROR',
        'INSUFFICIENT_SCOPES',
        `The merchant has not granted ${needed}.`,
      );
    }
    req.squareMerchant = merchant;

    if (await injectFault(ctx, merchant.id, req, reply)) return reply;

    const now = Date.now();
    const bucket = merchant.bucket;
    if (bucket.last === 0) bucket.tokens = BURST;
    else bucket.tokens = Math.min(BURST, bucket.tokens + ((now - bucket.last) / 1000) * PER_SECOND);
    bucket.last = now;
    if (bucket.tokens < 1) {
      reply.header('retry-after', String(Math.max(1, Math.ceil((1 - bucket.tokens) / PER_SECOND))));
      throw new SquareError(429, 'RATE_LIMIT_ERROR', 'RATE_LIMITED', 'Rate limit exceeded.');
    }
    bucket.tokens -= 1;
  });

  const scope = (squareScope: string) => ({ config: { squareScope } });

  // ---- Merchants and locations -------------------------------------------------------------------------

  const renderMerchant = (m: Merchant) => ({
    id: m.id,
    business_name: m.businessName,
    country: 'US',
    language_code: 'en-US',
    currency: m.currency,
    status: 'ACTIVE',
    main_location_id: m.locations[0]?.id,
    created_at: m.createdAt,
  });

  app.get('/v2/merchants/me', scope('MERCHANT_PROFILE_READ'), async (req) => ({
    merchant: renderMerchant(merchantOf(req)),
  }));

  app.get<{ Params: { id: string } }>('/v2/merchants/:id', scope('MERCHANT_PROFILE_READ'), async (req) => {
    const m = merchantOf(req);
    if (req.params.id !== m.id && req.params.id !== 'me') {
      throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Merchant \`${req.params.id}\` not found.`);
    }
    return { merchant: renderMerchant(m) };
  });

  app.get('/v2/locations', scope('MERCHANT_PROFILE_READ'), async (req) => ({
    locations: [...merchantOf(req).locations].sort((a, b) => a.name.localeCompare(b.name)),
  }));

  app.get<{ Params: { id: string } }>('/v2/locations/:id', scope('MERCHANT_PROFILE_READ'), async (req) => {
    const m = merchantOf(req);
    const location = req.params.id === 'main' ? m.locations[0] : m.location(req.params.id);
    if (!location)
      throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Location \`${req.params.id}\` not found.`);
    return { location };
  });

  // ---- Catalog -----------------------------------------------------------------------------------------

  app.get<{ Querystring: { types?: string; cursor?: string } }>(
    '/v2/catalog/list',
    scope('ITEMS_READ'),
    async (req) => {
      const m = merchantOf(req);
      const types = (req.query.types ?? 'ITEM,ITEM_VARIATION,CATEGORY')
        .split(',')
        .map((t) => t.trim().toUpperCase())
        .filter(Boolean);
      const fingerprint = `list:${types.join(',')}`;
      const offset = decodeCursor(req.query.cursor, fingerprint);
      const all = m.order
        .map((id) => m.objects.get(id) as CatalogObject)
        .filter((o) => !o.is_deleted && types.includes(o.type));
      const { items, cursor } = page(all, offset, CATALOG_PAGE, fingerprint);
      return { objects: items.map((o) => m.render(o)), ...(cursor ? { cursor } : {}) };
    },
  );

  app.get<{ Params: { id: string } }>('/v2/catalog/object/:id', scope('ITEMS_READ'), async (req) => {
    const m = merchantOf(req);
    const object = m.objects.get(req.params.id);
    if (!object || object.is_deleted)
      throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Object \`${req.params.id}\` not found.`);
    return { object: m.render(object) };
  });

  app.post<{ Body: Json }>('/v2/catalog/batch-retrieve', scope('ITEMS_READ'), async (req) => {
    const m = merchantOf(req);
    const ids = arrayOf(req.body?.object_ids, 'object_ids');
    if (!ids || ids.length === 0)
      throw invalid('MISSING_REQUIRED_PARAMETER', 'Missing required parameter.', 'object_ids');
    if (ids.length > 1000) throw invalid('INVALID_VALUE', 'At most 1000 object_ids.', 'object_ids');
    const objects = ids.map((id) => m.objects.get(id)).filter((o): o is CatalogObject => !!o && !o.is_deleted);
    const related =
      req.body?.include_related_objects === true
        ? [
            ...new Set(
              objects.filter((o) => o.type === 'ITEM_VARIATION').map((o) => String(o.item_variation_data?.item_id)),
            ),
          ]
            .map((id) => m.objects.get(id))
            .filter((o): o is CatalogObject => !!o)
        : [];
    return {
      objects: objects.map((o) => m.render(o)),
      ...(related.length > 0 ? { related_objects: related.map((o) => m.render(o)) } : {}),
    };
  });

  app.post<{ Body: Json }>('/v2/catalog/search', scope('ITEMS_READ'), async (req) => {
    const m = merchantOf(req);
    const body = req.body ?? {};
    const types = arrayOf(body.object_types, 'object_types') ?? ['ITEM', 'ITEM_VARIATION', 'CATEGORY'];
    const begin = timeOf(body.begin_time, 'begin_time');
    const includeDeleted = body.include_deleted_objects === true;
    const limit = limitOf(body.limit, 100, 1000);
    const query = (body.query ?? {}) as Json;
    const exact = query.exact_query as { attribute_name?: string; attribute_value?: string } | undefined;
    const prefix = query.prefix_query as { attribute_name?: string; attribute_prefix?: string } | undefined;
    const attribute = (o: CatalogObject, name: string): string | undefined => {
      const data = (o.item_variation_data ?? o.item_data ?? o.category_data ?? {}) as Json;
      const v = data[name];
      return v === undefined || v === null ? undefined : String(v);
    };
    const { cursor: _c, ...rest } = body;
    const fingerprint = `search:${JSON.stringify(rest)}`;
    const offset = decodeCursor(body.cursor, fingerprint);
    const all = m.order
      .map((id) => m.objects.get(id) as CatalogObject)
      .filter((o) => types.includes(o.type))
      .filter((o) => includeDeleted || !o.is_deleted)
      .filter((o) => begin === undefined || Date.parse(o.updated_at) > begin)
      .filter((o) => !exact?.attribute_name || attribute(o, exact.attribute_name) === exact.attribute_value)
      .filter(
        (o) =>
          !prefix?.attribute_name ||
          (attribute(o, prefix.attribute_name) ?? '')
            .toLowerCase()
            .startsWith((prefix.attribute_prefix ?? '').toLowerCase()),
      );
    const { items, cursor } = page(all, offset, limit, fingerprint);
    return {
      objects: items.map((o) => m.render(o)),
      ...(cursor ? { cursor } : {}),
      latest_time: new Date(m.tick()).toISOString(),
    };
  });

  app.post<{ Body: Json }>('/v2/catalog/search-catalog-items', scope('ITEMS_READ'), async (req) => {
    const m = merchantOf(req);
    const body = req.body ?? {};
    const limit = limitOf(body.limit, 100, 100);
    const text = typeof body.text_filter === 'string' ? body.text_filter.toLowerCase() : '';
    const categories = arrayOf(body.category_ids, 'category_ids');
    const { cursor: _c, ...rest } = body;
    const fingerprint = `items:${JSON.stringify(rest)}`;
    const offset = decodeCursor(body.cursor, fingerprint);
    const all = m.order
      .map((id) => m.objects.get(id) as CatalogObject)
      .filter((o) => o.type === 'ITEM' && !o.is_deleted)
      .map((o) => m.render(o))
      .filter((o) => {
        if (
          categories &&
          !((o.item_data?.categories ?? []) as { id: string }[]).some((c) => categories.includes(c.id))
        ) {
          return false;
        }
        if (!text) return true;
        const variations = (o.item_data?.variations ?? []) as CatalogObject[];
        const haystack = [
          String(o.item_data?.name ?? ''),
          ...variations.map((v) => String(v.item_variation_data?.sku ?? '')),
        ];
        return haystack.some((h) => h.toLowerCase().includes(text));
      });
    const { items, cursor } = page(all, offset, limit, fingerprint);
    return {
      items,
      matched_variation_ids: items.flatMap((o) =>
        ((o.item_data?.variations ?? []) as CatalogObject[]).map((v) => v.id),
      ),
      ...(cursor ? { cursor } : {}),
    };
  });

  app.post<{ Body: Json }>('/v2/catalog/object', scope('ITEMS_WRITE'), async (req) => {
    const m = merchantOf(req);
    const body = req.body ?? {};
    requireKey(body);
    const object = body.object as Json | undefined;
    if (!object || typeof object !== 'object')
      throw invalid('MISSING_REQUIRED_PARAMETER', 'Missing required parameter.', 'object');
    return catalogWrite(m, () =>
      once(m, 'catalog/object', body, () => {
        const result = m.upsertBatch([object]);
        return { catalog_object: result.objects[0], id_mappings: result.idMappings };
      }),
    );
  });

  app.post<{ Body: Json }>('/v2/catalog/batch-upsert', scope('ITEMS_WRITE'), async (req) => {
    const m = merchantOf(req);
    const body = req.body ?? {};
    requireKey(body);
    const batches = Array.isArray(body.batches) ? (body.batches as { objects?: Json[] }[]) : null;
    if (!batches || batches.length === 0)
      throw invalid('MISSING_REQUIRED_PARAMETER', 'Missing required parameter.', 'batches');
    const total = batches.reduce((n, b) => n + (b.objects?.length ?? 0), 0);
    if (total > 10_000) throw invalid('INVALID_VALUE', 'At most 10,000 objects per request.', 'batches');
    if (batches.some((b) => (b.objects?.length ?? 0) > 1000))
      throw invalid('INVALID_VALUE', 'At most 1,000 objects per batch.', 'batches');
    return catalogWrite(m, () =>
      once(m, 'catalog/batch-upsert', body, () => {
        const objects: CatalogObject[] = [];
        const idMappings: { client_object_id: string; object_id: string }[] = [];
        const errors: Json[] = [];
        // Each batch is atomic; a failed batch does not stop the others.
        batches.forEach((batch, i) => {
          try {
            const result = m.upsertBatch(batch.objects ?? []);
            objects.push(...result.objects);
            idMappings.push(...result.idMappings);
          } catch (err) {
            if (!(err instanceof SquareError)) throw err;
            errors.push({
              category: err.category,
              code: err.code,
              detail: `batches[${i}]: ${err.message}`,
              field: err.field,
            });
          }
        });
        return { objects, id_mappings: idMappings, ...(errors.length > 0 ? { errors } : {}) };
      }),
    );
  });

  // ---- Inventory ---------------------------------------------------------------------------------------

  app.post<{ Body: Json }>('/v2/inventory/counts/batch-retrieve', scope('INVENTORY_READ'), async (req) => {
    const m = merchantOf(req);
    const body = req.body ?? {};
    const objectIds = arrayOf(body.catalog_object_ids, 'catalog_object_ids');
    const locationIds = arrayOf(body.location_ids, 'location_ids');
    const states = arrayOf(body.states, 'states');
    const after = timeOf(body.updated_after, 'updated_after');
    const limit = limitOf(body.limit, 1000, 1000);
    const { cursor: _c, ...rest } = body;
    const fingerprint = `counts:${JSON.stringify(rest)}`;
    const offset = decodeCursor(body.cursor, fingerprint);
    const ids = objectIds ? new Set(objectIds) : null;
    const all = m
      .allCounts()
      .filter((c) => !ids || ids.has(c.catalog_object_id))
      .filter((c) => !locationIds || locationIds.includes(c.location_id))
      .filter((c) => !states || states.includes(c.state))
      .filter((c) => after === undefined || Date.parse(c.calculated_at) > after)
      .sort(
        (a, b) =>
          b.calculated_at.localeCompare(a.calculated_at) ||
          a.catalog_object_id.localeCompare(b.catalog_object_id) ||
          a.location_id.localeCompare(b.location_id) ||
          a.state.localeCompare(b.state),
      );
    const { items, cursor } = page(all, offset, limit, fingerprint);
    return { counts: items, ...(cursor ? { cursor } : {}) };
  });

  app.get<{ Params: { id: string }; Querystring: { location_ids?: string } }>(
    '/v2/inventory/:id',
    scope('INVENTORY_READ'),
    async (req) => {
      const m = merchantOf(req);
      const locations = req.query.location_ids?.split(',').filter(Boolean);
      return {
        counts: m
          .allCounts()
          .filter((c) => c.catalog_object_id === req.params.id && (!locations || locations.includes(c.location_id))),
      };
    },
  );

  app.post<{ Body: Json }>('/v2/inventory/changes/batch-create', scope('INVENTORY_WRITE'), async (req) => {
    const m = merchantOf(req);
    const body = req.body ?? {};
    requireKey(body);
    const changes = Array.isArray(body.changes) ? (body.changes as Json[]) : null;
    if (!changes || changes.length === 0)
      throw invalid('MISSING_REQUIRED_PARAMETER', 'Missing required parameter.', 'changes');
    if (changes.length > 100) throw invalid('INVALID_ARRAY_LENGTH', 'At most 100 changes per request.', 'changes');
    return once(m, 'inventory/changes', body, () => m.applyChanges(changes, body.ignore_unchanged_counts !== false));
  });

  // ---- Orders ------------------------------------------------------------------------------------------

  app.post<{ Body: Json }>('/v2/orders', scope('ORDERS_WRITE'), async (req) => {
    const m = merchantOf(req);
    const body = req.body ?? {};
    const order = body.order as Json | undefined;
    if (!order || typeof order !== 'object')
      throw invalid('MISSING_REQUIRED_PARAMETER', 'Missing required parameter.', 'order');
    const run = () => ({ order: structuredClone(m.createOrder(order)) });
    return body.idempotency_key !== undefined ? once(m, 'orders', body, run) : run();
  });

  app.post<{ Body: Json }>('/v2/orders/search', scope('ORDERS_READ'), async (req) => {
    const m = merchantOf(req);
    const body = req.body ?? {};
    const locationIds = arrayOf(body.location_ids, 'location_ids');
    if (!locationIds || locationIds.length === 0)
      throw invalid('MISSING_REQUIRED_PARAMETER', 'Missing required parameter.', 'location_ids');
    if (locationIds.length > 10) throw invalid('INVALID_ARRAY_LENGTH', 'At most 10 location_ids.', 'location_ids');
    for (const id of locationIds) {
      if (!m.location(id))
        throw new SquareError(
          403,
          'AUTHENTICATION_ERROR',
          'FORBIDDEN',
          `Location \`${id}\` does not belong to this merchant.`,
          'location_ids',
        );
    }
    const limit = limitOf(body.limit, 500, 1000);
    const query = (body.query ?? {}) as Json;
    const filter = (query.filter ?? {}) as Json;
    const sort = (query.sort ?? {}) as { sort_field?: string; sort_order?: string };
    const sortField = sort.sort_field ?? 'CREATED_AT';
    if (!['CREATED_AT', 'UPDATED_AT', 'CLOSED_AT'].includes(sortField))
      throw invalid('INVALID_ENUM_VALUE', 'Unknown sort_field.', 'query.sort.sort_field');
    const order = sort.sort_order ?? 'DESC';
    const dateFilter = (filter.date_time_filter ?? {}) as Record<string, { start_at?: string; end_at?: string }>;
    const dateFields = Object.keys(dateFilter).filter((k) => dateFilter[k]);
    if (dateFields.length > 1)
      throw invalid('INVALID_VALUE', 'Only one date_time_filter field may be set.', 'query.filter.date_time_filter');
    const dateField = dateFields[0];
    if (dateField && `${dateField.toUpperCase()}` !== sortField) {
      throw invalid(
        'INVALID_VALUE',
        `The sort_field must be ${dateField.toUpperCase()} when filtering on ${dateField}.`,
        'query.sort.sort_field',
      );
    }
    const range = dateField ? dateFilter[dateField] : undefined;
    const start = timeOf(range?.start_at, `query.filter.date_time_filter.${dateField}.start_at`);
    const end = timeOf(range?.end_at, `query.filter.date_time_filter.${dateField}.end_at`);
    const states = ((filter.state_filter as { states?: string[] } | undefined)?.states ?? null) as string[] | null;
    const field = sortField.toLowerCase() as 'created_at' | 'updated_at' | 'closed_at';
    const { cursor: _c, ...rest } = body;
    const fingerprint = `orders:${JSON.stringify(rest)}`;
    const offset = decodeCursor(body.cursor, fingerprint);
    const all = [...m.orders.values()]
      .filter((o) => locationIds.includes(o.location_id))
      .filter((o) => !states || states.includes(o.state))
      .filter((o) => {
        if (!dateField) return true;
        const value = o[field];
        if (typeof value !== 'string') return false;
        const t = Date.parse(value);
        return (start === undefined || t >= start) && (end === undefined || t < end);
      })
      .sort((a, b) => {
        const cmp = String(a[field] ?? '').localeCompare(String(b[field] ?? '')) || a.id.localeCompare(b.id);
        return order === 'ASC' ? cmp : -cmp;
      });
    const { items, cursor } = page(all, offset, limit, fingerprint);
    if (body.return_entries === true) {
      return {
        order_entries: items.map((o) => ({ order_id: o.id, version: o.version, location_id: o.location_id })),
        ...(cursor ? { cursor } : {}),
      };
    }
    return { orders: items, ...(cursor ? { cursor } : {}) };
  });

  const findOrder = (m: Merchant, id: string): Order => {
    const order = m.orders.get(id);
    if (!order) throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Order \`${id}\` not found.`);
    return order;
  };

  app.get<{ Params: { id: string } }>('/v2/orders/:id', scope('ORDERS_READ'), async (req) => ({
    order: findOrder(merchantOf(req), req.params.id),
  }));

  app.post<{ Body: Json }>('/v2/orders/batch-retrieve', scope('ORDERS_READ'), async (req) => {
    const m = merchantOf(req);
    const ids = arrayOf(req.body?.order_ids, 'order_ids');
    if (!ids || ids.length === 0)
      throw invalid('MISSING_REQUIRED_PARAMETER', 'Missing required parameter.', 'order_ids');
    if (ids.length > 100) throw invalid('INVALID_ARRAY_LENGTH', 'At most 100 order_ids.', 'order_ids');
    return { orders: ids.map((id) => m.orders.get(id)).filter((o): o is Order => !!o) };
  });

  app.put<{ Params: { id: string }; Body: Json }>('/v2/orders/:id', scope('ORDERS_WRITE'), async (req) => {
    const m = merchantOf(req);
    const body = req.body ?? {};
    const patch = body.order as Json | undefined;
    if (!patch) throw invalid('MISSING_REQUIRED_PARAMETER', 'Missing required parameter.', 'order');
    const run = () => ({ order: structuredClone(m.updateOrder(req.params.id, patch)) });
    return body.idempotency_key ? once(m, `orders/${req.params.id}`, body, run) : run();
  });

  // ---- Payments and refunds ----------------------------------------------------------------------------

  app.get<{ Params: { id: string } }>('/v2/payments/:id', scope('PAYMENTS_READ'), async (req) => {
    const payment = merchantOf(req).payments.get(req.params.id);
    if (!payment)
      throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Payment \`${req.params.id}\` not found.`);
    return { payment };
  });

  app.post<{ Body: Json }>('/v2/refunds', scope('PAYMENTS_WRITE'), async (req) => {
    const m = merchantOf(req);
    const body = req.body ?? {};
    requireKey(body);
    if (typeof body.payment_id !== 'string')
      throw invalid('MISSING_REQUIRED_PARAMETER', 'Missing required parameter.', 'payment_id');
    const money = body.amount_money as { amount?: unknown; currency?: unknown } | undefined;
    if (!money || typeof money.amount !== 'number' || typeof money.currency !== 'string') {
      throw invalid('MISSING_REQUIRED_PARAMETER', 'Missing required parameter.', 'amount_money');
    }
    return once(m, 'refunds', body, () => {
      const refund = m.refund({
        paymentId: body.payment_id as string,
        amount: { amount: money.amount as number, currency: money.currency as string },
        reason: typeof body.reason === 'string' ? body.reason : undefined,
      });
      setTimeout(() => m.settleRefund(refund.id), 200).unref();
      return { refund: structuredClone(refund) };
    });
  });

  // ListPaymentRefunds: created_at (begin_time/end_time) or updated_at (updated_at_begin_time/…_end_time)
  // ranges, location_id, status, source_type; sorted by sort_field (CREATED_AT default) in sort_order (DESC
  // default); at most 100 a page. An empty answer is `{}`.
  app.get<{ Querystring: Record<string, string | undefined> }>('/v2/refunds', scope('PAYMENTS_READ'), async (req) => {
    const m = merchantOf(req);
    const q = req.query;
    const limit = limitOf(q.limit === undefined ? undefined : Number(q.limit), 100, 100);
    const sortField = q.sort_field ?? 'CREATED_AT';
    if (!['CREATED_AT', 'UPDATED_AT'].includes(sortField))
      throw invalid('INVALID_ENUM_VALUE', 'Unknown sort_field.', 'sort_field');
    const sortOrder = q.sort_order ?? 'DESC';
    if (!['ASC', 'DESC'].includes(sortOrder)) throw invalid('INVALID_ENUM_VALUE', 'Unknown sort_order.', 'sort_order');
    const yearAgo = Date.now() - 365 * 24 * 60 * 60 * 1000;
    const begin = timeOf(q.begin_time, 'begin_time') ?? yearAgo;
    const end = timeOf(q.end_time, 'end_time');
    const updatedBegin = timeOf(q.updated_at_begin_time, 'updated_at_begin_time');
    const updatedEnd = timeOf(q.updated_at_end_time, 'updated_at_end_time');
    const field = sortField === 'UPDATED_AT' ? 'updated_at' : 'created_at';
    const { cursor: _c, ...rest } = q;
    const fingerprint = `refunds:${JSON.stringify(rest)}`;
    const offset = decodeCursor(q.cursor, fingerprint);
    const all = [...m.refunds.values()]
      .filter((r) => {
        const created = Date.parse(String(r.created_at));
        const updated = Date.parse(String(r.updated_at));
        return (
          created >= begin &&
          (end === undefined || created <= end) &&
          (updatedBegin === undefined || updated >= updatedBegin) &&
          (updatedEnd === undefined || updated <= updatedEnd) &&
          (!q.location_id || r.location_id === q.location_id) &&
          (!q.status || r.status === q.status) &&
          (!q.source_type || q.source_type === 'CARD')
        );
      })
      .sort((a, b) => {
        const cmp = String(a[field]).localeCompare(String(b[field])) || a.id.localeCompare(b.id);
        return sortOrder === 'ASC' ? cmp : -cmp;
      });
    const { items, cursor } = page(all, offset, limit, fingerprint);
    if (items.length === 0) return {};
    return { refunds: items, ...(cursor ? { cursor } : {}) };
  });

  app.get<{ Params: { id: string } }>('/v2/refunds/:id', scope('PAYMENTS_READ'), async (req) => {
    const refund = merchantOf(req).refunds.get(req.params.id);
    if (!refund)
      throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Refund \`${req.params.id}\` not found.`);
    return { refund };
  });
}

/** Every failure as Square's `{"errors":[…]}`; Fastify's own (bad JSON, unknown route) too. */
export function renderError(err: unknown, reply: FastifyReply) {
  if (err instanceof SquareError) {
    return reply.status(err.status).send({
      errors: [
        { category: err.category, code: err.code, detail: err.message, ...(err.field ? { field: err.field } : {}) },
      ],
    });
  }
  const status = (err as { statusCode?: number }).statusCode;
  if (status && status >= 400 && status < 500) {
    return reply.status(400).send({
      errors: [{ category: 'INVALID_REQUEST_ERROR', code: 'BAD_REQUEST', detail: (err as Error).message }],
    });
  }
  reply.log.error(err);
  return reply.status(500).send({
    errors: [{ category: 'API_ERROR', code: 'INTERNAL_SERVER_ERROR', detail: 'An internal error occurred.' }],
  });
}
