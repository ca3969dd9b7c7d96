import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  buildSchema,
  type DocumentNode,
  execute,
  type GraphQLError,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  parse,
  specifiedRules,
  validate,
  valueFromASTUntyped,
} from 'graphql';
import { SANDBOX_APPS } from '../apps.ts';
import type { ProviderSimulator, ShopControl } from '../context.ts';
import { minorUnits, splitName, type WebOrderInput } from '../web-order.ts';
import { actualCost, costExtension, MAX_QUERY_COST, operationOf, refill, requestedCost } from './cost.ts';
import { gid, isoNow, parseGid, type Shop, type ShopLocation, type ShopOrder, type ShopVariant } from './model.ts';
import { oauthRoutes } from './oauth.ts';
import { createRefund, lineShare } from './refunds.ts';
import { type RequestContext, rootValue } from './resolvers.ts';
import { closeReturn, createReturn, disposeReturnLines, refundReturn } from './returns.ts';
import { SDL } from './sdl.ts';
import { API_VERSIONS, PLANS, type PlanName, SHOP_NAME, ShopifyStore } from './store.ts';

const UNAUTHORIZED = { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' };

/** 2026-01 added the @idempotent directive on mutation fields; older versions do not know it. */
const IDEMPOTENT_FROM = '2026-01';
const schemas = new Map<boolean, GraphQLSchema>();
const schemaFor = (version: string) => {
  const idempotent = version >= IDEMPOTENT_FROM;
  let schema = schemas.get(idempotent);
  if (!schema) {
    schema = buildSchema(idempotent ? `${SDL}\ndirective @idempotent(key: String!) on FIELD\n` : SDL);
    schemas.set(idempotent, schema);
  }
  return schema;
};

/**
 * The idempotency key of a mutation (the first root field's @idempotent(key:)) and what it was asked
 * to do (field names and resolved arguments), to replay or refuse a repeat.
 */
function idempotency(op: OperationDefinitionNode, variables: Record<string, unknown>) {
  let key: string | null = null;
  const fields: unknown[] = [];
  for (const sel of op.selectionSet.selections) {
    if (sel.kind !== Kind.FIELD) continue;
    const directive = sel.directives?.find((d) => d.name.value === 'idempotent');
    const arg = directive?.arguments?.find((a) => a.name.value === 'key');
    if (arg && key === null) key = String(valueFromASTUntyped(arg.value, variables));
    fields.push([
      sel.name.value,
      Object.fromEntries((sel.arguments ?? []).map((a) => [a.name.value, valueFromASTUntyped(a.value, variables)])),
    ]);
  }
  return key === null ? null : { key, fingerprint: JSON.stringify(fields) };
}

/**
 * The Shopify simulator, mounted under /shopify: /shopify/{shop}/... stands in for
 * https://{shop}.myshopify.com/... — OAuth, the Admin GraphQL API (cost-based throttling, userErrors,
 * cursor pagination), webhooks signed with the app secret, and a tiny shop admin page to uninstall apps.
 */
export const shopifySimulator: ProviderSimulator = (app, ctx) => {
  const store = new ShopifyStore(ctx);
  oauthRoutes(app, store);
  // Shopify also takes a bare query as `Content-Type: application/graphql` (this scope only).
  app.addContentTypeParser('application/graphql', { parseAs: 'string' }, (_req, body, done) =>
    done(null, { query: body }),
  );

  app.post<{
    Params: { shop: string; version: string };
    Body: { query?: unknown; variables?: unknown; operationName?: unknown } | string;
  }>('/:shop/admin/api/:version/graphql.json', async (req, reply) => {
    const { shop: name } = req.params;
    reply.header('x-request-id', randomUUID());
    if (!SHOP_NAME.test(name)) return reply.status(404).send({ errors: 'Not Found' });
    const fault = await ctx.faults.draw('shopify', name);
    if (fault === 'timeout') return hang(req, reply, ctx.faults.get('shopify', name).timeoutMs);
    if (fault === 'error')
      return reply.status(503).send({ errors: 'Service Unavailable: the shop is temporarily unavailable' });

    const version = servedVersion(req.params.version);
    if (!version) return reply.status(404).send({ errors: 'Not Found' });
    reply.header('x-shopify-api-version', version);
    const grant = store.authenticate(name, req.headers['x-shopify-access-token'] as string | undefined);
    if (!grant) return reply.status(401).send(UNAUTHORIZED);
    const shop = store.shop(name);

    const body = typeof req.body === 'string' ? safeJson(req.body) : req.body;
    const query = body && typeof body === 'object' ? (body as { query?: unknown }).query : undefined;
    if (typeof query !== 'string' || !query.trim())
      return reply.status(400).send({ errors: { query: 'Required parameter missing or invalid' } });
    const variables = ((body as { variables?: unknown }).variables ?? {}) as Record<string, unknown>;
    const operationName = ((body as { operationName?: unknown }).operationName as string | undefined) ?? null;

    refill(shop.bucket);
    const schema = schemaFor(version);
    const checked = checkedDocument(version, schema, query);
    if ('errors' in checked) return { errors: checked.errors, extensions: costExtension(0, 0, shop.bucket) };
    const { document } = checked;
    const op = operationOf(document, operationName);
    if (!op)
      return {
        errors: [{ message: 'An operation name is required when the document has several operations.' }],
        extensions: costExtension(0, 0, shop.bucket),
      };

    const requested = requestedCost(schema, document, operationName, variables);
    if (requested > MAX_QUERY_COST)
      return {
        errors: [
          {
            message: `Query cost is ${requested}, which exceeds the single query max cost limit (${MAX_QUERY_COST}).`,
            extensions: { code: 'MAX_COST_EXCEEDED', cost: requested, maxCost: MAX_QUERY_COST },
          },
        ],
        extensions: costExtension(requested, null, shop.bucket),
      };
    if (fault === 'throttle') {
      // Another client of this shop's bucket spent it: leave a second's restore short of this query.
      shop.bucket.available = Math.max(0, Math.min(shop.bucket.available, requested - shop.bucket.restoreRate));
    }
    if (shop.bucket.available < requested)
      return {
        errors: [
          {
            message: 'Throttled',
            extensions: { code: 'THROTTLED', documentation: 'https://shopify.dev/api/usage/rate-limits' },
          },
        ],
        extensions: costExtension(requested, null, shop.bucket),
      };
    shop.bucket.available -= requested;

    const idem = op.operation === 'mutation' ? idempotency(op, variables) : null;
    const seen = idem ? shop.idempotency.get(`${grant.clientId}:${idem.key}`) : undefined;
    if (idem && seen) {
      const refusal =
        seen.fingerprint !== idem.fingerprint
          ? {
              code: 'IDEMPOTENCY_KEY_PARAMETER_MISMATCH',
              message: 'The idempotency key was already used with other parameters.',
            }
          : seen.data === null
            ? { code: 'IDEMPOTENCY_CONCURRENT_REQUEST', message: 'A request with this idempotency key is in progress.' }
            : null;
      shop.bucket.available = Math.min(shop.bucket.maximumAvailable, shop.bucket.available + requested - 1);
      if (refusal)
        return {
          errors: [{ message: refusal.message, extensions: { code: refusal.code } }],
          extensions: costExtension(requested, 1, shop.bucket),
        };
      // Same key, same parameters: the first answer again, and nothing done twice.
      return { data: seen.data, extensions: costExtension(requested, 1, shop.bucket) };
    }
    if (idem) shop.idempotency.set(`${grant.clientId}:${idem.key}`, { fingerprint: idem.fingerprint, data: null });

    const context: RequestContext = { store, shop, clientId: grant.clientId, scope: grant.scope, version };
    const result = await execute({
      schema: schema,
      document,
      rootValue: rootValue(context),
      variableValues: variables,
      operationName,
    });
    if (idem) {
      const key = `${grant.clientId}:${idem.key}`;
      if (result.data) shop.idempotency.set(key, { fingerprint: idem.fingerprint, data: result.data });
      else shop.idempotency.delete(key);
    }
    if (op.operation === 'mutation' && shop.dropAfterApply > 0) {
      shop.dropAfterApply--;
      return hang(req, reply, 0);
    }
    const actual = Math.min(requested, actualCost(schema, document, operationName, result.data));
    shop.bucket.available = Math.min(shop.bucket.maximumAvailable, shop.bucket.available + (requested - actual));
    const answer: Record<string, unknown> = {};
    if (result.errors?.length) answer.errors = result.errors.map(formatError);
    answer.data = result.data ?? null;
    answer.extensions = costExtension(requested, actual, shop.bucket);
    return answer;
  });

  // A minimal shop admin: which apps are installed, and the Uninstall button a merchant would press.
  app.get<{ Params: { shop: string } }>('/:shop/admin', async (req, reply) => {
    const { shop: name } = req.params;
    if (!SHOP_NAME.test(name)) return reply.status(404).send('Not Found');
    store.shop(name);
    const apps = [...(store.installations.get(name)?.values() ?? [])];
    const rows = apps
      .map(
        (a) =>
          `<li><strong>Switchyard</strong> <small>(${escapeHtml(a.scope.join(', '))})</small> ` +
          `<form method="post" action="admin/apps/${encodeURIComponent(a.clientId)}/uninstall" style="display:inline">` +
          '<button type="submit">Uninstall</button></form></li>',
      )
      .join('');
    return reply
      .type('text/html; charset=utf-8')
      .send(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(name)} · Apps</title>` +
          `<base href="/shopify/${encodeURIComponent(name)}/"></head><body style="font-family:system-ui,sans-serif;padding:32px">` +
          `<h1>${escapeHtml(name)}.myshopify.com</h1><h2>Installed apps</h2>` +
          (rows ? `<ul>${rows}</ul>` : '<p>No apps installed.</p>') +
          '</body></html>',
      );
  });

  app.post<{ Params: { shop: string; clientId: string } }>(
    '/:shop/admin/apps/:clientId/uninstall',
    async (req, reply) => {
      const removed = store.uninstall(req.params.shop, req.params.clientId);
      if (!removed) return reply.status(404).send({ errors: 'Not Found' });
      if ((req.headers.accept ?? '').includes('text/html')) return reply.redirect(`../../../admin`, 303);
      return { ok: true };
    },
  );

  // The admin's Return flow (the control's `flow: 'return'`): returnCreate, the disposal of every unit (RESTOCKED at
  // the location, else where it was shipped from; NOT_RESTOCKED when not restocked), returnRefund, returnClose.
  function returnThroughReturns(
    shop: Shop,
    order: ShopOrder,
    lines: { line: ShopOrder['lineItems'][number]; quantity: number; restock: boolean }[],
    money: {
      location: ShopLocation | null;
      shipping: number;
      amount: number;
      sale: ShopOrder['transactions'][number] | undefined;
    },
  ) {
    const asked: { fulfillmentLineItemId: number; quantity: number; restock: boolean; from: number }[] = [];
    for (const l of lines) {
      let left = l.quantity;
      for (const f of order.fulfillments)
        for (const fl of f.lines) {
          if (fl.lineItemId !== l.line.id || left === 0) continue;
          const take = Math.min(left, fl.quantity);
          asked.push({ fulfillmentLineItemId: fl.id, quantity: take, restock: l.restock, from: f.locationId });
          left -= take;
        }
      if (left > 0) throw httpError(400, `Only fulfilled units can be returned (${l.line.sku ?? l.line.title})`);
    }
    const made = createReturn(store, shop, order, {
      requested: false,
      lines: asked.map((a) => ({
        fulfillmentLineItemId: a.fulfillmentLineItemId,
        quantity: a.quantity,
        returnReason: 'UNKNOWN',
      })),
    });
    if (!('ret' in made)) throw httpError(400, made.message);
    const ret = made.ret;
    const rfo = ret.reverseFulfillmentOrders[0];
    const disposed = disposeReturnLines(
      store,
      shop,
      (rfo?.lines ?? []).map((rl, i) => {
        const a = asked[i] as (typeof asked)[number];
        return {
          lineId: rl.id,
          quantity: rl.totalQuantity,
          type: a.restock ? 'RESTOCKED' : 'NOT_RESTOCKED',
          locationId: a.restock ? (money.location?.id ?? a.from) : null,
        };
      }),
    );
    if (!('lineIds' in disposed)) throw httpError(400, disposed.message);
    const refunded = refundReturn(store, shop, order, ret, {
      lines: ret.lines.map((l) => ({ returnLineItemId: l.id, quantity: l.quantity })),
      shipping: { amount: money.shipping },
      transactions: money.amount > 0 ? [{ amount: money.amount, parentId: money.sale?.id ?? null }] : [],
    });
    if (!('refund' in refunded)) throw httpError(400, refunded.message);
    const closed = closeReturn(store, shop, order, ret);
    if (closed) throw httpError(400, closed.message);
    return {
      orderId: gid('Order', order.id),
      returnId: gid('Return', ret.id),
      refundId: gid('Refund', refunded.refund.id),
    };
  }

  const control: ShopControl = {
    shops: () => [...store.shops.keys()],
    reset: (name, seed) => {
      store.reset(name, seed);
      return store.snapshot(name);
    },
    snapshot: (name) => store.snapshot(name),
    adjustStock: (name, change) => {
      const shop = store.shop(name);
      const variant = findSku(store, shop, change.sku);
      const location = findLocationOrFirst(shop, change.location);
      const level = store.level(shop, variant.inventoryItemId, location.id, true);
      if (change.quantity !== undefined) level.available = change.quantity;
      else if (change.delta !== undefined) level.available += change.delta;
      else throw httpError(400, 'Give quantity or delta');
      level.updatedAt = isoNow();
      store.emitLevel(shop, variant.inventoryItemId, location.id);
    },
    // A storefront checkout: one fulfillment order at the location Shopify's order routing picks (the
    // first that fulfils online orders and holds every line; for a pickup, the chosen store), whose units
    // move available → committed there; orders/create, then inventory_levels/update for each level.
    placeOrder: (name, raw) => {
      const shop = store.shop(name);
      const input = (raw ?? {}) as WebOrderInput;
      if (!input.lines?.length) throw httpError(400, 'An order needs lines');
      const lines = input.lines.map((l) => {
        if (!Number.isInteger(l.quantity) || l.quantity <= 0) throw httpError(400, `Bad quantity for ${l.sku}`);
        return { variant: findSku(store, shop, l.sku), quantity: l.quantity };
      });
      if (new Set(lines.map((l) => l.variant.id)).size !== lines.length)
        throw httpError(400, 'Each SKU may appear on one line only');
      const type = input.fulfillmentType ?? 'ship';
      if (type !== 'ship' && type !== 'pickup') throw httpError(400, `Shopify has no ${type} orders`);
      const pickup = type === 'pickup';
      const candidates = shop.locations.filter(
        (loc) => loc.isActive && (pickup ? loc.pickup : loc.fulfillsOnlineOrders),
      );
      const location = input.location
        ? findLocationOrFirst(shop, input.location)
        : (candidates.find((loc) =>
            lines.every((l) => (store.level(shop, l.variant.inventoryItemId, loc.id)?.available ?? 0) >= l.quantity),
          ) ??
          candidates[0] ??
          (shop.locations[0] as ShopLocation));
      if (pickup && !location.pickup) throw httpError(400, `${location.name} does not offer local pickup`);
      for (const l of lines) {
        const available = store.level(shop, l.variant.inventoryItemId, location.id)?.available ?? 0;
        if (available < l.quantity)
          throw httpError(409, `Only ${available} of ${l.variant.sku} available at ${location.name}`);
      }
      const named = splitName(input.customer?.name);
      if (input.tags !== undefined && (!Array.isArray(input.tags) || input.tags.some((t) => typeof t !== 'string')))
        throw httpError(400, 'tags must be a list of strings');
      const order = store.createOrder(shop, {
        lines,
        location,
        at: isoNow(),
        commit: true,
        pickup,
        details: {
          customer: input.customer && {
            firstName: named?.first,
            lastName: named?.last,
            email: input.customer.email,
            phone: input.customer.phone,
          },
          shippingAddress: input.shippingAddress,
          billingAddress: input.billingAddress,
          note: input.note,
          tags: input.tags,
          discount: minorUnits(input.discount, 'discount'),
          tax: minorUnits(input.tax, 'tax'),
          shipping: minorUnits(input.shipping, 'shipping'),
        },
      });
      store.emit(shop, 'ORDERS_CREATE', store.orderPayload(shop, order));
      for (const l of lines) store.emitLevel(shop, l.variant.inventoryItemId, location.id);
      return { orderId: gid('Order', order.id) };
    },
    // POST /_control/shopify/{shop}/orders/{id}/cancel {reason?, refund?, restock?}: the merchant cancels in
    // Shopify's admin (restock and refund default to true there, as Shopify's cancel dialog does).
    cancelOrder: (name, id, body) => {
      const shop = store.shop(name);
      const n = parseGid(id, 'Order') ?? (/^\d+$/.test(id) ? Number(id) : null);
      const order = n === null ? undefined : shop.orders.get(n);
      if (!order) throw httpError(404, `No order ${id} in ${name}`);
      const reason = String(body.reason ?? 'OTHER').toUpperCase();
      if (!['CUSTOMER', 'DECLINED', 'FRAUD', 'INVENTORY', 'OTHER', 'STAFF'].includes(reason))
        throw httpError(400, `Unknown cancel reason ${reason}`);
      const refused = store.cancelOrder(shop, order, {
        reason,
        refund: body.refund !== false,
        restock: body.restock !== false,
        staffNote: typeof body.staffNote === 'string' ? body.staffNote : null,
      });
      if (refused) throw httpError(400, refused.message);
      return { orderId: gid('Order', order.id), cancelledAt: order.cancelledAt };
    },
    // GET /_control/shopify/{shop}/orders/{id}: the order as Shopify's REST API shows it (fulfillments, tracking).
    getOrder: (name, id) => {
      const shop = store.shop(name);
      const n = parseGid(id, 'Order') ?? (/^\d+$/.test(id) ? Number(id) : null);
      const order = n === null ? undefined : shop.orders.get(n);
      if (!order) throw httpError(404, `No order ${id} in ${name}`);
      return store.orderPayload(shop, order);
    },
    // POST /_control/shopify/{shop}/orders/{id}/return: the merchant refunds lines in Shopify's admin with
    // "Restock items" at a location (restockType RETURN; NO_RESTOCK for a line with restock: false), the lines'
    // price and tax (plus shipping) back to the card unless an amount is given: refunds/create, orders/updated,
    // inventory_levels/update where units went back.
    returnOrder: (name, id, body) => {
      const shop = store.shop(name);
      const n = parseGid(id, 'Order') ?? (/^\d+$/.test(id) ? Number(id) : null);
      const order = n === null ? undefined : shop.orders.get(n);
      if (!order) throw httpError(404, `No order ${id} in ${name}`);
      const location = body.location ? findLocationOrFirst(shop, body.location) : null;
      const lines = body.lines.map((l) => {
        const line = l.lineId
          ? order.lineItems.find((x) => x.id === (parseGid(l.lineId, 'LineItem') ?? Number(l.lineId)))
          : order.lineItems.find((x) => x.sku === l.sku);
        if (!line) throw httpError(400, `Order ${order.name} has no line ${l.lineId ?? l.sku}`);
        return { line, quantity: l.quantity, restock: l.restock !== false };
      });
      const shipping = minorUnits(body.shipping, 'shipping') ?? 0;
      const amount =
        minorUnits(body.amount, 'amount') ??
        lines.reduce((s, l) => {
          const share = lineShare(l.line, l.quantity);
          return s + share.subtotal + share.tax;
        }, 0) + shipping;
      const sale = order.transactions.find((t) => t.kind === 'SALE');
      if (body.flow === 'return') return returnThroughReturns(shop, order, lines, { location, shipping, amount, sale });
      const made = createRefund(store, shop, order, {
        note: body.note ?? null,
        lines: lines.map((l) => ({
          lineItemId: l.line.id,
          quantity: l.quantity,
          restockType: l.restock ? 'RETURN' : 'NO_RESTOCK',
          locationId: l.restock ? (location?.id ?? null) : null,
        })),
        transactions: amount > 0 ? [{ amount, parentId: sale?.id ?? null }] : [],
        shipping: { amount: shipping },
      });
      if (!('refund' in made)) throw httpError(400, made.message);
      return { orderId: gid('Order', order.id), refundId: gid('Refund', made.refund.id) };
    },
  };
  // POST /_control/shopify/{shop}/uninstall {clientId?}: the merchant removes the app (default: the sandbox app).
  // POST /_control/shopify/{shop}/plan {plan} or {maximumAvailable, restoreRate}: the shop's API cost bucket.
  control.action = (name, action, body) => {
    if (action === 'plan') {
      const input = body as { plan?: string; maximumAvailable?: number; restoreRate?: number };
      const preset = input.plan ? PLANS[input.plan as PlanName] : undefined;
      if (input.plan && !preset)
        throw httpError(400, `Unknown plan ${input.plan}; one of ${Object.keys(PLANS).join(', ')}`);
      const bucket = store.shop(name).bucket;
      refill(bucket);
      bucket.maximumAvailable = preset?.maximumAvailable ?? input.maximumAvailable ?? bucket.maximumAvailable;
      bucket.restoreRate = preset?.restoreRate ?? input.restoreRate ?? bucket.restoreRate;
      bucket.available = bucket.maximumAvailable;
      return { maximumAvailable: bucket.maximumAvailable, restoreRate: bucket.restoreRate };
    }
    // POST /_control/shopify/{shop}/drop-after-apply {count}: the next mutations are applied, then the
    // connection drops before the answer (what a client sees when a network fails after Shopify committed).
    if (action === 'drop-after-apply') {
      const count = Number((body as { count?: number }).count ?? 1);
      if (!Number.isInteger(count) || count < 0) throw httpError(400, 'count must be a whole number');
      store.shop(name).dropAfterApply = count;
      return { count };
    }
    // POST /_control/shopify/{shop}/expire-tokens: the shop's expiring access tokens lapse now (as after an hour).
    if (action === 'expire-tokens') {
      let expired = 0;
      for (const grant of store.tokens.values())
        if (grant.shop === name && grant.expiresAt !== null) {
          grant.expiresAt = Date.now() - 1;
          expired++;
        }
      return { expired };
    }
    if (action !== 'uninstall') throw httpError(404, `Unknown action ${action}`);
    const clientId = (body as { clientId?: string }).clientId ?? SANDBOX_APPS.shopify.apiKey;
    if (!store.uninstall(name, clientId)) throw httpError(404, `The app is not installed on ${name}`);
    return { ok: true };
  };
  ctx.registerControl('shopify', control);
};

function servedVersion(requested: string): string | null {
  if (!/^\d{4}-\d{2}$/.test(requested) && requested !== 'unstable') return null;
  if (requested === 'unstable') return API_VERSIONS[API_VERSIONS.length - 1] as string;
  // A retired version is served by the oldest supported one; a future one by the newest.
  if (requested < (API_VERSIONS[0] as string)) return API_VERSIONS[0] as string;
  const known = [...API_VERSIONS].reverse().find((v) => v <= requested);
  return known ?? (API_VERSIONS[0] as string);
}

function hang(req: FastifyRequest, reply: FastifyReply, ms: number) {
  reply.hijack();
  const timer = setTimeout(() => req.raw.socket?.destroy(), ms);
  req.raw.socket?.once('close', () => clearTimeout(timer));
  return reply;
}

function formatError(err: GraphQLError) {
  const out: Record<string, unknown> = { message: err.message };
  if (err.locations) out.locations = err.locations;
  if (err.path) out.path = err.path;
  if (err.extensions && Object.keys(err.extensions).length > 0) out.extensions = err.extensions;
  return out;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

function httpError(statusCode: number, message: string) {
  return Object.assign(new Error(message), { statusCode });
}

function findSku(store: ShopifyStore, shop: Shop, sku: string): ShopVariant {
  const variant = store.variantBySku(shop, sku);
  if (!variant) throw httpError(404, `No variant with SKU ${sku} in ${shop.name}`);
  return variant;
}

function findLocationOrFirst(shop: Shop, location: string | undefined): ShopLocation {
  if (!location) return shop.locations[0] as ShopLocation;
  const id = parseGid(location, 'Location') ?? (/^\d+$/.test(location) ? Number(location) : null);
  const found = shop.locations.find((l) => l.id === id || l.name === location);
  if (!found) throw httpError(404, `No location ${location} in ${shop.name}`);
  return found;
}

/**
 * A query parsed and validated against its version's schema, kept by its text: a client sends the same few
 * queries again and again, and parsing and validating them each time was the simulator's largest cost after
 * sending webhooks. Up to DOCUMENTS texts are kept (then the cache starts again).
 */
const documents = new Map<string, { document: DocumentNode } | { errors: ReturnType<typeof formatError>[] }>();
const DOCUMENTS = 500;

function checkedDocument(version: string, schema: GraphQLSchema, query: string) {
  const key = `${version}\n${query}`;
  let checked = documents.get(key);
  if (!checked) {
    try {
      const document = parse(query);
      const errors = validate(schema, document, specifiedRules);
      checked = errors.length > 0 ? { errors: errors.map(formatError) } : { document };
    } catch (err) {
      checked = { errors: [formatError(err as GraphQLError)] };
    }
    if (documents.size >= DOCUMENTS) documents.clear();
    documents.set(key, checked);
  }
  return checked;
}
