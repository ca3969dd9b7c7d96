import { randomUUID } from 'node:crypto';
import { GraphQLError } from 'graphql';
import { type ConnectionArgs, connection, MAX_PAGE } from './connection.ts';
import {
  cancelFulfillment,
  findFulfillment,
  type TrackingInput,
  trackingOf,
  updateFulfillmentTracking,
} from './fulfillments.ts';
import { createRefund, type RefundRequest } from './refunds.ts';
import {
  approveReturn,
  cancelReturn,
  closeReturn,
  createReturn,
  declineReturn,
  disposeReturnLines,
  findFulfillmentLine,
  findReturn,
  findReverseLine,
  findReverseOrder,
  type ReturnRefusal,
  refundReturn,
  reopenReturn,
} from './returns.ts';
import { matches, parseSearch } from './search.ts';
import {
  API_VERSIONS,
  financialStatus,
  fulfillmentStatus,
  gid,
  isoNow,
  money,
  onHand,
  orderTotals,
  parseGid,
  parseMoney,
  quantityOf,
  RETURN_TOPICS,
  type Shop,
  type ShopAddress,
  type ShopInventoryItem,
  type ShopifyStore,
  type ShopLevel,
  type ShopLineItem,
  type ShopLocation,
  type ShopOrder,
  type ShopProduct,
  type ShopReturn,
  type ShopVariant,
  topicHeader,
  unfulfilledQuantity,
  WEBHOOK_TOPICS,
  type WebhookSubscription,
  type WebhookTopic,
} from './store.ts';

/**
 * Resolvers for the schema in sdl.ts. Views are plain objects whose fields are values or functions of
 * the field's arguments (graphql-js calls them), built from the shop's state at the moment they are read.
 */

export interface RequestContext {
  store: ShopifyStore;
  shop: Shop;
  clientId: string;
  scope: string[];
  version: string;
}

type Args = Record<string, unknown>;

const INVENTORY_REASONS = new Set([
  'correction',
  'cycle_count_available',
  'damaged',
  'movement_created',
  'movement_updated',
  'movement_received',
  'movement_canceled',
  'other',
  'promotion',
  'quality_control',
  'received',
  'reservation_created',
  'reservation_deleted',
  'reservation_updated',
  'restock',
  'safety_stock',
  'shrinkage',
]);

function requireScope(ctx: RequestContext, field: string, ...anyOf: string[]) {
  const granted = new Set(ctx.scope.flatMap((s) => (s.startsWith('write_') ? [s, `read_${s.slice(6)}`] : [s])));
  if (anyOf.some((s) => granted.has(s))) return;
  throw new GraphQLError(
    `Access denied for ${field} field. Required access: ${anyOf.map((s) => `\`${s}\``).join(' or ')} access scope.`,
    { extensions: { code: 'ACCESS_DENIED', documentation: 'https://shopify.dev/api/usage/access-scopes' } },
  );
}

/** API versions compare as strings (YYYY-MM). */
const atLeast = (ctx: RequestContext, version: string) => ctx.version >= version;

const moneyBag = (minor: number, currency: string) => ({
  shopMoney: { amount: money(minor), currencyCode: currency },
  presentmentMoney: { amount: money(minor), currencyCode: currency },
});

const cleanPath = (...path: (string | number)[]) => path.map(String);

// ---- Views ---------------------------------------------------------------------------------------

function locationView(ctx: RequestContext, loc: ShopLocation) {
  return {
    __typename: 'Location',
    id: gid('Location', loc.id),
    name: loc.name,
    isActive: loc.isActive,
    fulfillsOnlineOrders: loc.fulfillsOnlineOrders,
    // Shopify answers null for a location that does not offer local pickup.
    localPickupSettingsV2: loc.pickup ? { pickupTime: 'TWO_HOURS', instructions: '' } : null,
    createdAt: loc.createdAt,
    updatedAt: loc.updatedAt,
    address: {
      ...loc.address,
      address2: null,
      provinceCode: loc.address.province,
      country: loc.address.countryCode === 'US' ? 'United States' : loc.address.countryCode,
      formatted: [loc.address.address1, `${loc.address.city} ${loc.address.province} ${loc.address.zip}`],
    },
    inventoryLevel: (args: Args) => {
      requireScope(ctx, 'inventoryLevel', 'read_inventory');
      const itemId = parseGid(args.inventoryItemId, 'InventoryItem');
      const level = itemId === null ? undefined : ctx.store.level(ctx.shop, itemId, loc.id);
      return level && itemId !== null ? levelView(ctx, itemId, loc.id, level) : null;
    },
    inventoryLevels: (args: Args & ConnectionArgs) => {
      requireScope(ctx, 'inventoryLevels', 'read_inventory');
      const rows: { itemId: number; level: ShopLevel }[] = [];
      for (const [itemId, byLocation] of ctx.shop.levels) {
        const level = byLocation.get(loc.id);
        if (level) rows.push({ itemId, level });
      }
      const terms = parseSearch(args.query as string | undefined);
      const filtered = rows.filter((r) =>
        matches(terms, (f) =>
          f === 'updated_at' ? r.level.updatedAt : f === 'inventory_item_id' ? r.itemId : undefined,
        ),
      );
      return connection(
        filtered,
        (r) => [r.itemId],
        args,
        (r) => levelView(ctx, r.itemId, loc.id, r.level),
      );
    },
  };
}

function levelView(ctx: RequestContext, itemId: number, locationId: number, level: ShopLevel) {
  return {
    __typename: 'InventoryLevel',
    id: `gid://shopify/InventoryLevel/${locationId}?inventory_item_id=${itemId}`,
    createdAt: level.createdAt,
    updatedAt: level.updatedAt,
    canDeactivate: onHand(level) === 0 && level.committed === 0,
    item: () => itemView(ctx, ctx.shop.items.get(itemId) as ShopInventoryItem),
    location: () => locationView(ctx, ctx.shop.locations.find((l) => l.id === locationId) as ShopLocation),
    quantities: (args: Args) => {
      const names = (args.names as string[]) ?? [];
      return names.map((name) => {
        const quantity = quantityOf(level, name);
        if (quantity === null)
          throw new GraphQLError(`Invalid quantity name: ${name}`, { extensions: { code: 'BAD_REQUEST' } });
        return {
          id: `gid://shopify/InventoryQuantity/${locationId}?inventory_item_id=${itemId}&name=${name}`,
          name,
          quantity,
          updatedAt: level.updatedAt,
        };
      });
    },
  };
}

function itemView(ctx: RequestContext, item: ShopInventoryItem) {
  const variant = ctx.shop.variants.get(item.variantId) as ShopVariant;
  return {
    __typename: 'InventoryItem',
    id: gid('InventoryItem', item.id),
    sku: variant.sku || null,
    tracked: item.tracked,
    requiresShipping: true,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
    variant: () => variantView(ctx, variant),
    inventoryLevel: (args: Args) => {
      const locationId = parseGid(args.locationId, 'Location');
      const level = locationId === null ? undefined : ctx.store.level(ctx.shop, item.id, locationId);
      return level && locationId !== null ? levelView(ctx, item.id, locationId, level) : null;
    },
    inventoryLevels: (args: Args & ConnectionArgs) => {
      const rows = [...(ctx.shop.levels.get(item.id) ?? [])].map(([locationId, level]) => ({ locationId, level }));
      return connection(
        rows,
        (r) => [r.locationId],
        args,
        (r) => levelView(ctx, item.id, r.locationId, r.level),
      );
    },
  };
}

function variantView(ctx: RequestContext, v: ShopVariant) {
  const product = ctx.shop.products.get(v.productId) as ShopProduct;
  return {
    __typename: 'ProductVariant',
    id: gid('ProductVariant', v.id),
    title: v.title,
    displayName: `${product.title} - ${v.title}`,
    sku: v.sku || null,
    barcode: v.barcode,
    price: money(v.price),
    compareAtPrice: v.compareAtPrice === null ? null : money(v.compareAtPrice),
    position: v.position,
    inventoryQuantity: totalAvailable(ctx.shop, v.inventoryItemId),
    selectedOptions: v.selectedOptions,
    createdAt: v.createdAt,
    updatedAt: v.updatedAt,
    product: () => productView(ctx, product),
    inventoryItem: () => itemView(ctx, ctx.shop.items.get(v.inventoryItemId) as ShopInventoryItem),
  };
}

function totalAvailable(shop: Shop, itemId: number) {
  let total = 0;
  for (const level of shop.levels.get(itemId)?.values() ?? []) total += level.available;
  return total;
}

function productView(ctx: RequestContext, p: ShopProduct) {
  const variants = () => p.variantIds.map((id) => ctx.shop.variants.get(id) as ShopVariant);
  return {
    __typename: 'Product',
    id: gid('Product', p.id),
    title: p.title,
    handle: p.handle,
    vendor: p.vendor,
    productType: p.productType,
    descriptionHtml: p.descriptionHtml,
    description: p.descriptionHtml.replace(/<[^>]*>/g, ''),
    status: p.status,
    tags: p.tags,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
    totalInventory: variants().reduce((s, v) => s + totalAvailable(ctx.shop, v.inventoryItemId), 0),
    hasOnlyDefaultVariant: p.variantIds.length === 1 && variants()[0]?.title === 'Default Title',
    options: () =>
      p.options.map((o, i) => ({
        id: gid('ProductOption', o.id),
        name: o.name,
        position: i + 1,
        values: o.values,
        optionValues: o.values.map((value, j) => ({
          id: gid('ProductOptionValue', o.id * 100 + j),
          name: value,
          hasVariants: variants().some((v) => v.selectedOptions[i]?.value === value),
        })),
      })),
    images: (args: ConnectionArgs) =>
      connection(
        p.images,
        (i) => [i.id],
        args,
        (i) => ({ id: gid('ProductImage', i.id), url: i.url, altText: i.altText }),
      ),
    variants: (args: ConnectionArgs) =>
      connection(
        variants(),
        (v) => [v.position, v.id],
        args,
        (v) => variantView(ctx, v),
      ),
  };
}

function lineItemView(ctx: RequestContext, order: ShopOrder, l: ShopLineItem) {
  const variant = l.variantId === null ? undefined : ctx.shop.variants.get(l.variantId);
  const product = l.productId === null ? undefined : ctx.shop.products.get(l.productId);
  return {
    id: gid('LineItem', l.id),
    sku: l.sku,
    title: l.title,
    name: l.variantTitle ? `${l.title} - ${l.variantTitle}` : l.title,
    variantTitle: l.variantTitle,
    quantity: l.quantity,
    currentQuantity: l.quantity - l.refundedQuantity - l.cancelledQuantity,
    refundableQuantity: l.quantity - l.refundedQuantity - l.cancelledQuantity,
    unfulfilledQuantity: unfulfilledQuantity(order, l.id),
    nonFulfillableQuantity: l.quantity - unfulfilledQuantity(order, l.id),
    totalDiscountSet: moneyBag(l.discount, order.currency),
    discountedTotalSet: moneyBag(l.price * l.quantity - l.discount, order.currency),
    originalTotalSet: moneyBag(l.price * l.quantity, order.currency),
    taxLines: (args: Args) =>
      (l.tax > 0 ? [{ title: 'Sales Tax', rate: l.taxRate, priceSet: moneyBag(l.tax, order.currency) }] : []).slice(
        0,
        (args.first as number | undefined) ?? MAX_PAGE,
      ),
    variant: () => (variant ? variantView(ctx, variant) : null),
    product: () => (product ? productView(ctx, product) : null),
    originalUnitPriceSet: moneyBag(l.price, order.currency),
    discountedUnitPriceSet: moneyBag(l.price, order.currency),
  };
}

function fulfillmentOrderView(ctx: RequestContext, order: ShopOrder, fo: ShopOrder['fulfillmentOrders'][number]) {
  const location = ctx.shop.locations.find((l) => l.id === fo.locationId);
  return {
    __typename: 'FulfillmentOrder',
    id: gid('FulfillmentOrder', fo.id),
    status: fo.status,
    createdAt: fo.createdAt,
    updatedAt: fo.updatedAt,
    orderId: gid('Order', order.id),
    order: () => orderView(ctx, order),
    assignedLocation: {
      name: location?.name ?? '',
      location: () => (location ? locationView(ctx, location) : null),
    },
    deliveryMethod: { id: gid('DeliveryMethod', fo.id), methodType: fo.methodType },
    lineItems: (args: ConnectionArgs) =>
      connection(
        fo.lineItems,
        (l) => [l.id],
        args,
        (l) => {
          const line = order.lineItems.find((x) => x.id === l.lineItemId) as ShopLineItem;
          return {
            id: gid('FulfillmentOrderLineItem', l.id),
            totalQuantity: l.totalQuantity,
            remainingQuantity: l.remainingQuantity,
            sku: line.sku,
            lineItem: () => lineItemView(ctx, order, line),
          };
        },
      ),
  };
}

function fulfillmentLineView(
  ctx: RequestContext,
  order: ShopOrder,
  l: ShopOrder['fulfillments'][number]['lines'][number],
) {
  const line = order.lineItems.find((x) => x.id === l.lineItemId) as ShopLineItem;
  const share = line.quantity > 0 ? l.quantity / line.quantity : 0;
  return {
    id: gid('FulfillmentLineItem', l.id),
    lineItem: () => lineItemView(ctx, order, line),
    quantity: l.quantity,
    originalTotalSet: moneyBag(line.price * l.quantity, order.currency),
    discountedTotalSet: moneyBag(line.price * l.quantity - Math.round(line.discount * share), order.currency),
  };
}

function fulfillmentView(ctx: RequestContext, order: ShopOrder, f: ShopOrder['fulfillments'][number]) {
  const location = ctx.shop.locations.find((l) => l.id === f.locationId);
  return {
    __typename: 'Fulfillment',
    id: gid('Fulfillment', f.id),
    status: f.status,
    createdAt: f.createdAt,
    location: () => (location ? locationView(ctx, location) : null),
    trackingInfo: (args: Args) => f.tracking.slice(0, (args.first as number | undefined) ?? f.tracking.length),
    totalQuantity: f.lines.reduce((s, l) => s + l.quantity, 0),
    fulfillmentLineItems: (args: ConnectionArgs) =>
      connection(
        f.lines,
        (l) => [l.id],
        args,
        (l) => fulfillmentLineView(ctx, order, l),
      ),
  };
}

function transactionView(order: ShopOrder, t: ShopOrder['transactions'][number]): unknown {
  return {
    id: gid('OrderTransaction', t.id),
    kind: t.kind,
    status: t.status,
    gateway: t.gateway,
    createdAt: t.createdAt,
    amountSet: moneyBag(t.amount, order.currency),
    parentTransaction: () => {
      const parent = order.transactions.find((x) => x.id === t.parentId);
      return parent ? transactionView(order, parent) : null;
    },
  };
}

function refundView(ctx: RequestContext, order: ShopOrder, r: ShopOrder['refunds'][number]) {
  const bag = (minor: number) => moneyBag(minor, order.currency);
  return {
    __typename: 'Refund',
    id: gid('Refund', r.id),
    legacyResourceId: String(r.id),
    createdAt: r.createdAt,
    updatedAt: r.createdAt,
    note: r.note,
    totalRefundedSet: bag(r.amount),
    order: () => orderView(ctx, order),
    return: () => {
      const ret = r.returnId ? order.returns.find((x) => x.id === r.returnId) : undefined;
      if (!ret) return null;
      requireScope(ctx, 'return', 'read_returns', 'read_marketplace_returns');
      return returnView(ctx, order, ret);
    },
    refundLineItems: (args: ConnectionArgs) =>
      connection(
        r.lines,
        (l) => [l.id],
        args,
        (l) => {
          const line = order.lineItems.find((x) => x.id === l.lineItemId) as ShopLineItem;
          const location = ctx.shop.locations.find((x) => x.id === l.locationId);
          return {
            id: gid('RefundLineItem', l.id),
            lineItem: () => lineItemView(ctx, order, line),
            quantity: l.quantity,
            restockType: l.restockType,
            restocked: l.restockType !== 'NO_RESTOCK',
            location: () => (location ? locationView(ctx, location) : null),
            priceSet: bag(line.price),
            subtotalSet: bag(l.subtotal),
            totalTaxSet: bag(l.tax),
          };
        },
      ),
    refundShippingLines: (args: ConnectionArgs) =>
      connection(
        r.shipping > 0 ? [r] : [],
        (x) => [x.id],
        args,
        (x) => ({ id: gid('RefundShippingLine', x.id), subtotalAmountSet: bag(x.shipping), taxAmountSet: bag(0) }),
      ),
    orderAdjustments: (args: ConnectionArgs) =>
      connection(
        r.adjustments.filter((a) => a.kind === 'refund_discrepancy'),
        (a) => [a.id],
        args,
        (a) => ({
          id: gid('OrderAdjustment', a.id),
          amountSet: bag(a.amount),
          taxAmountSet: bag(a.tax),
          reason: 'REFUND_DISCREPANCY',
        }),
      ),
    transactions: (args: ConnectionArgs) =>
      connection(
        order.transactions.filter((t) => r.transactionIds.includes(t.id)),
        (t) => [t.id],
        args,
        (t) => transactionView(order, t),
      ),
  };
}

function reverseOrderView(
  ctx: RequestContext,
  order: ShopOrder,
  ret: ShopReturn,
  rfo: ShopReturn['reverseFulfillmentOrders'][number],
) {
  const fulfillmentLine = (returnLineId: number) => {
    const fli = ret.lines.find((x) => x.id === returnLineId)?.fulfillmentLineItemId ?? null;
    const found = findFulfillmentLine(order, fli);
    return found ? fulfillmentLineView(ctx, order, found.line) : null;
  };
  return {
    __typename: 'ReverseFulfillmentOrder',
    id: gid('ReverseFulfillmentOrder', rfo.id),
    status: rfo.status,
    order: () => orderView(ctx, order),
    lineItems: (args: ConnectionArgs) =>
      connection(
        rfo.lines,
        (l) => [l.id],
        args,
        (l) => ({
          __typename: 'ReverseFulfillmentOrderLineItem',
          id: gid('ReverseFulfillmentOrderLineItem', l.id),
          totalQuantity: l.totalQuantity,
          fulfillmentLineItem: () => fulfillmentLine(l.returnLineId),
          dispositions: l.dispositions.map((d) => {
            const location = ctx.shop.locations.find((x) => x.id === d.locationId);
            return {
              __typename: 'ReverseFulfillmentOrderDisposition',
              id: gid('ReverseFulfillmentOrderDisposition', d.id),
              location: () => (location ? locationView(ctx, location) : null),
              quantity: d.quantity,
              type: d.type,
            };
          }),
        }),
      ),
  };
}

function returnView(ctx: RequestContext, order: ShopOrder, ret: ShopReturn): Record<string, unknown> {
  const refunds = order.refunds.filter((r) => r.returnId === ret.id);
  const refundedOf = (lineItemId: number) =>
    refunds
      .flatMap((r) => r.lines)
      .filter((l) => l.lineItemId === lineItemId)
      .reduce((s, l) => s + l.quantity, 0);
  return {
    __typename: 'Return',
    id: gid('Return', ret.id),
    name: ret.name,
    status: ret.status,
    order: () => orderView(ctx, order),
    totalQuantity: ret.lines.reduce((s, l) => s + l.quantity, 0),
    decline: ret.decline && { reason: ret.decline.reason, note: ret.decline.note },
    returnLineItems: (args: ConnectionArgs) =>
      connection(
        ret.lines,
        (l) => [l.id],
        args,
        (l) => {
          const found = findFulfillmentLine(order, l.fulfillmentLineItemId);
          const refunded = Math.min(l.quantity, refundedOf(l.lineItemId));
          return {
            __typename: 'ReturnLineItem',
            id: gid('ReturnLineItem', l.id),
            quantity: l.quantity,
            returnReason: l.returnReason,
            returnReasonNote: l.returnReasonNote,
            customerNote: l.customerNote,
            refundedQuantity: refunded,
            refundableQuantity: l.quantity - refunded,
            fulfillmentLineItem: () => (found ? fulfillmentLineView(ctx, order, found.line) : null),
          };
        },
      ),
    reverseFulfillmentOrders: (args: ConnectionArgs) =>
      connection(
        ret.reverseFulfillmentOrders,
        (o) => [o.id],
        args,
        (o) => reverseOrderView(ctx, order, ret, o),
      ),
    refunds: (args: ConnectionArgs) =>
      connection(
        refunds,
        (r) => [r.id],
        args,
        (r) => refundView(ctx, order, r),
      ),
  };
}

function mailingAddress(a: ShopAddress | null) {
  return (
    a && {
      firstName: a.firstName,
      lastName: a.lastName,
      name: [a.firstName, a.lastName].filter(Boolean).join(' ') || null,
      company: a.company,
      address1: a.address1,
      address2: a.address2,
      city: a.city,
      province: a.province,
      provinceCode: a.provinceCode,
      zip: a.zip,
      country: a.country,
      countryCodeV2: a.countryCode,
      phone: a.phone,
    }
  );
}

function orderView(ctx: RequestContext, order: ShopOrder): Record<string, unknown> {
  const t = orderTotals(order);
  const c = order.customer;
  return {
    __typename: 'Order',
    id: gid('Order', order.id),
    legacyResourceId: String(order.id),
    name: order.name,
    email: order.email,
    phone: order.phone,
    note: order.note,
    tags: order.tags,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
    processedAt: order.createdAt,
    cancelledAt: order.cancelledAt,
    cancelReason: order.cancelReason,
    closed: fulfillmentStatus(order) === 'FULFILLED',
    currencyCode: order.currency,
    displayFinancialStatus: financialStatus(order),
    displayFulfillmentStatus: fulfillmentStatus(order),
    customer: c && {
      id: gid('Customer', c.id),
      firstName: c.firstName,
      lastName: c.lastName,
      displayName: `${c.firstName} ${c.lastName}`.trim(),
      email: c.email,
      phone: c.phone,
    },
    shippingAddress: mailingAddress(order.shippingAddress),
    billingAddress: mailingAddress(order.billingAddress),
    totalPriceSet: moneyBag(t.total, order.currency),
    currentTotalPriceSet: moneyBag(t.currentTotal, order.currency),
    subtotalPriceSet: moneyBag(t.subtotal, order.currency),
    currentSubtotalPriceSet: moneyBag(t.currentSubtotal, order.currency),
    totalShippingPriceSet: moneyBag(order.shippingPrice, order.currency),
    totalTaxSet: moneyBag(t.tax, order.currency),
    currentTotalTaxSet: moneyBag(t.currentTax, order.currency),
    totalDiscountsSet: moneyBag(t.discounts, order.currency),
    currentTotalDiscountsSet: moneyBag(t.currentDiscounts, order.currency),
    totalRefundedSet: moneyBag(t.refunded, order.currency),
    totalReceivedSet: moneyBag(t.total, order.currency),
    lineItems: (args: ConnectionArgs) =>
      connection(
        order.lineItems,
        (l) => [l.id],
        args,
        (l) => lineItemView(ctx, order, l),
      ),
    fulfillmentOrders: (args: ConnectionArgs) => {
      requireScope(
        ctx,
        'fulfillmentOrders',
        'read_merchant_managed_fulfillment_orders',
        'read_assigned_fulfillment_orders',
        'read_third_party_fulfillment_orders',
      );
      return connection(
        order.fulfillmentOrders,
        (f) => [f.id],
        args,
        (f) => fulfillmentOrderView(ctx, order, f),
      );
    },
    fulfillments: (args: Args) =>
      order.fulfillments
        .slice(0, (args.first as number | undefined) ?? MAX_PAGE)
        .map((f) => fulfillmentView(ctx, order, f)),
    refunds: (args: Args) =>
      order.refunds.slice(0, (args.first as number | undefined) ?? MAX_PAGE).map((r) => refundView(ctx, order, r)),
    returns: (args: Args & ConnectionArgs) => {
      requireScope(ctx, 'returns', 'read_returns', 'read_marketplace_returns');
      const terms = parseSearch(args.query as string | undefined);
      const rows = order.returns.filter((r) =>
        matches(terms, (f) => (f === 'status' ? r.status.toLowerCase() : f === 'id' ? r.id : undefined)),
      );
      return connection(
        rows,
        (r) => [r.id],
        args,
        (r) => returnView(ctx, order, r),
      );
    },
    transactions: (args: Args) =>
      order.transactions.slice(0, (args.first as number | undefined) ?? MAX_PAGE).map((t) => transactionView(order, t)),
  };
}

function subscriptionView(sub: WebhookSubscription) {
  return {
    __typename: 'WebhookSubscription',
    id: gid('WebhookSubscription', sub.id),
    topic: sub.topic,
    format: sub.format,
    callbackUrl: sub.callbackUrl,
    uri: sub.callbackUrl,
    endpoint: { __typename: 'WebhookHttpEndpoint', callbackUrl: sub.callbackUrl },
    createdAt: sub.createdAt,
    updatedAt: sub.updatedAt,
  };
}

// ---- Lookups -------------------------------------------------------------------------------------

const findLocation = (ctx: RequestContext, id: unknown) => {
  const n = parseGid(id, 'Location');
  return ctx.shop.locations.find((l) => l.id === n);
};
const findOrder = (ctx: RequestContext, id: unknown) => {
  const n = parseGid(id, 'Order');
  return n === null ? undefined : ctx.shop.orders.get(n);
};
const findProduct = (ctx: RequestContext, id: unknown) => {
  const n = parseGid(id, 'Product');
  return n === null ? undefined : ctx.shop.products.get(n);
};

function sortKeyOf(sortKey: unknown, fields: Record<string, (x: never) => string | number>, fallback: string) {
  const key = typeof sortKey === 'string' && sortKey in fields ? sortKey : fallback;
  return fields[key] as (x: never) => string | number;
}

// ---- Root ----------------------------------------------------------------------------------------

export function rootValue(ctx: RequestContext) {
  const { shop, store } = ctx;
  const now = () => isoNow();
  const touchProduct = (p: ShopProduct) => {
    p.updatedAt = now();
  };

  const query = {
    shop: () => ({
      __typename: 'Shop',
      id: gid('Shop', shop.shopId),
      name: shop.name,
      email: `owner@${shop.name}.example.com`,
      myshopifyDomain: `${shop.name}.myshopify.com`,
      currencyCode: shop.currency,
      ianaTimezone: 'America/Los_Angeles',
      url: `https://${shop.name}.myshopify.com`,
      primaryDomain: { host: `${shop.name}.myshopify.com`, url: `https://${shop.name}.myshopify.com` },
      createdAt: shop.createdAt,
    }),
    node: (args: Args) => {
      const id = String(args.id);
      const type = /^gid:\/\/shopify\/([A-Za-z]+)\//.exec(id)?.[1];
      const resolver = type && (nodeResolvers as Record<string, (a: Args) => unknown>)[type];
      return resolver ? resolver({ id }) : null;
    },
    location: (args: Args) => {
      requireScope(ctx, 'location', 'read_locations', 'read_inventory');
      const loc = args.id == null ? shop.locations[0] : findLocation(ctx, args.id);
      return loc ? locationView(ctx, loc) : null;
    },
    locations: (args: Args & ConnectionArgs) => {
      requireScope(ctx, 'locations', 'read_locations');
      const terms = parseSearch(args.query as string | undefined);
      const rows = shop.locations.filter(
        (l) =>
          (args.includeInactive || l.isActive) &&
          matches(terms, (f) => (f === 'name' || f === null ? l.name : f === 'id' ? l.id : undefined)),
      );
      const key = sortKeyOf(args.sortKey, { ID: (l: ShopLocation) => l.id, NAME: (l: ShopLocation) => l.name }, 'NAME');
      return connection(
        rows,
        (l) => [key(l as never), l.id],
        args,
        (l) => locationView(ctx, l),
      );
    },
    product: (args: Args) => {
      requireScope(ctx, 'product', 'read_products');
      const p = findProduct(ctx, args.id);
      return p ? productView(ctx, p) : null;
    },
    products: (args: Args & ConnectionArgs) => {
      requireScope(ctx, 'products', 'read_products');
      const terms = parseSearch(args.query as string | undefined);
      const rows = [...shop.products.values()].filter((p) =>
        matches(terms, (f) => {
          switch (f) {
            case null:
            case 'title':
              return p.title;
            case 'updated_at':
              return p.updatedAt;
            case 'created_at':
              return p.createdAt;
            case 'status':
              return p.status.toLowerCase();
            case 'vendor':
              return p.vendor;
            case 'product_type':
              return p.productType;
            case 'handle':
              return p.handle;
            case 'id':
              return p.id;
            case 'tag':
              return p.tags;
            case 'sku':
              return p.variantIds.map((id) => shop.variants.get(id)?.sku ?? '');
            default:
              return undefined;
          }
        }),
      );
      const key = sortKeyOf(
        args.sortKey,
        {
          ID: (p: ShopProduct) => p.id,
          TITLE: (p: ShopProduct) => p.title,
          UPDATED_AT: (p: ShopProduct) => p.updatedAt,
          CREATED_AT: (p: ShopProduct) => p.createdAt,
          PRODUCT_TYPE: (p: ShopProduct) => p.productType,
          VENDOR: (p: ShopProduct) => p.vendor,
        },
        'ID',
      );
      return connection(
        rows,
        (p) => [key(p as never), p.id],
        args,
        (p) => productView(ctx, p),
      );
    },
    productVariant: (args: Args) => {
      requireScope(ctx, 'productVariant', 'read_products');
      const n = parseGid(args.id, 'ProductVariant');
      const v = n === null ? undefined : shop.variants.get(n);
      return v ? variantView(ctx, v) : null;
    },
    productVariants: (args: Args & ConnectionArgs) => {
      requireScope(ctx, 'productVariants', 'read_products');
      const terms = parseSearch(args.query as string | undefined);
      const rows = [...shop.variants.values()].filter((v) =>
        matches(terms, (f) => {
          switch (f) {
            case null:
            case 'title':
              return v.title;
            case 'sku':
              return v.sku;
            case 'barcode':
              return v.barcode;
            case 'updated_at':
              return v.updatedAt;
            case 'created_at':
              return v.createdAt;
            case 'product_id':
              return v.productId;
            case 'id':
              return v.id;
            case 'inventory_item_id':
              return v.inventoryItemId;
            default:
              return undefined;
          }
        }),
      );
      const key = sortKeyOf(
        args.sortKey,
        {
          ID: (v: ShopVariant) => v.id,
          SKU: (v: ShopVariant) => v.sku,
          TITLE: (v: ShopVariant) => v.title,
          POSITION: (v: ShopVariant) => v.position,
        },
        'ID',
      );
      return connection(
        rows,
        (v) => [key(v as never), v.id],
        args,
        (v) => variantView(ctx, v),
      );
    },
    inventoryItem: (args: Args) => {
      requireScope(ctx, 'inventoryItem', 'read_inventory', 'read_products');
      const n = parseGid(args.id, 'InventoryItem');
      const item = n === null ? undefined : shop.items.get(n);
      return item ? itemView(ctx, item) : null;
    },
    inventoryItems: (args: Args & ConnectionArgs) => {
      requireScope(ctx, 'inventoryItems', 'read_inventory', 'read_products');
      const terms = parseSearch(args.query as string | undefined);
      const rows = [...shop.items.values()].filter((i) =>
        matches(terms, (f) =>
          f === 'sku'
            ? shop.variants.get(i.variantId)?.sku
            : f === 'updated_at'
              ? i.updatedAt
              : f === 'id'
                ? i.id
                : undefined,
        ),
      );
      return connection(
        rows,
        (i) => [i.id],
        args,
        (i) => itemView(ctx, i),
      );
    },
    inventoryLevel: (args: Args) => {
      requireScope(ctx, 'inventoryLevel', 'read_inventory');
      const m = /^gid:\/\/shopify\/InventoryLevel\/(\d+)\?inventory_item_id=(\d+)$/.exec(String(args.id));
      if (!m) return null;
      const level = store.level(shop, Number(m[2]), Number(m[1]));
      return level ? levelView(ctx, Number(m[2]), Number(m[1]), level) : null;
    },
    order: (args: Args) => {
      requireScope(ctx, 'order', 'read_orders');
      const o = findOrder(ctx, args.id);
      return o ? orderView(ctx, o) : null;
    },
    refund: (args: Args) => {
      requireScope(ctx, 'refund', 'read_orders');
      const id = parseGid(args.id, 'Refund');
      for (const o of shop.orders.values()) {
        const r = o.refunds.find((x) => x.id === id);
        if (r) return refundView(ctx, o, r);
      }
      return null;
    },
    return: (args: Args) => {
      requireScope(ctx, 'return', 'read_returns', 'read_marketplace_returns');
      const hit = findReturn(shop, parseGid(args.id, 'Return'));
      return hit ? returnView(ctx, hit.order, hit.ret) : null;
    },
    reverseFulfillmentOrder: (args: Args) => {
      requireScope(ctx, 'reverseFulfillmentOrder', 'read_returns', 'read_marketplace_returns');
      const hit = findReverseOrder(shop, parseGid(args.id, 'ReverseFulfillmentOrder'));
      return hit ? reverseOrderView(ctx, hit.order, hit.ret, hit.rfo) : null;
    },
    orders: (args: Args & ConnectionArgs) => {
      requireScope(ctx, 'orders', 'read_orders');
      const terms = parseSearch(args.query as string | undefined);
      const cutoff = isoNow(Date.now() - 60 * 86_400_000);
      const all = !ctx.scope.includes('read_all_orders');
      const rows = [...shop.orders.values()].filter(
        (o) =>
          (!all || o.createdAt >= cutoff) &&
          matches(terms, (f) => {
            switch (f) {
              case null:
              case 'name':
                return o.name;
              case 'updated_at':
                return o.updatedAt;
              case 'created_at':
              case 'processed_at':
                return o.createdAt;
              case 'id':
                return o.id;
              case 'financial_status':
                return financialStatus(o).toLowerCase();
              case 'fulfillment_status':
                return fulfillmentStatus(o) === 'FULFILLED'
                  ? 'shipped'
                  : fulfillmentStatus(o) === 'PARTIALLY_FULFILLED'
                    ? 'partial'
                    : 'unshipped';
              case 'email':
                return o.email;
              case 'sku':
                return o.lineItems.map((l) => l.sku ?? '');
              default:
                return undefined;
            }
          }),
      );
      const key = sortKeyOf(
        args.sortKey,
        {
          ID: (o: ShopOrder) => o.id,
          CREATED_AT: (o: ShopOrder) => o.createdAt,
          PROCESSED_AT: (o: ShopOrder) => o.createdAt,
          UPDATED_AT: (o: ShopOrder) => o.updatedAt,
          ORDER_NUMBER: (o: ShopOrder) => o.number,
        },
        'ID',
      );
      return connection(
        rows,
        (o) => [key(o as never), o.id],
        args,
        (o) => orderView(ctx, o),
      );
    },
    job: (args: Args) => {
      const id = String(args.id);
      return /^gid:\/\/shopify\/Job\/[0-9a-f-]+$/.test(id) ? { __typename: 'Job', id, done: true } : null;
    },
    fulfillmentOrder: (args: Args) => {
      requireScope(
        ctx,
        'fulfillmentOrder',
        'read_merchant_managed_fulfillment_orders',
        'read_assigned_fulfillment_orders',
        'read_third_party_fulfillment_orders',
      );
      const n = parseGid(args.id, 'FulfillmentOrder');
      for (const order of shop.orders.values()) {
        const fo = order.fulfillmentOrders.find((f) => f.id === n);
        if (fo) return fulfillmentOrderView(ctx, order, fo);
      }
      return null;
    },
    webhookSubscription: (args: Args) => {
      const n = parseGid(args.id, 'WebhookSubscription');
      const sub = n === null ? undefined : shop.subscriptions.get(n);
      return sub && sub.clientId === ctx.clientId ? subscriptionView(sub) : null;
    },
    webhookSubscriptions: (args: Args & ConnectionArgs) => {
      const topics = args.topics as string[] | undefined;
      const rows = [...shop.subscriptions.values()].filter(
        (s) =>
          s.clientId === ctx.clientId &&
          (!topics || topics.includes(s.topic)) &&
          (!args.callbackUrl || s.callbackUrl === args.callbackUrl),
      );
      return connection(rows, (s) => [s.id], args, subscriptionView);
    },
  };

  const nodeResolvers = {
    Location: (a: Args) => query.location(a),
    Product: (a: Args) => query.product(a),
    ProductVariant: (a: Args) => query.productVariant(a),
    InventoryItem: (a: Args) => query.inventoryItem(a),
    InventoryLevel: (a: Args) => query.inventoryLevel(a),
    Order: (a: Args) => query.order(a),
    Return: (a: Args) => query.return(a),
    ReverseFulfillmentOrder: (a: Args) => query.reverseFulfillmentOrder(a),
    FulfillmentOrder: (a: Args) => query.fulfillmentOrder(a),
    WebhookSubscription: (a: Args) => query.webhookSubscription(a),
  };

  // ---- Inventory mutations ------------------------------------------------------------------------

  type Change = { name: string; delta: number; after: number; itemId: number; locationId: number };

  const adjustmentGroup = (reason: string, uri: unknown, changes: Change[]) => ({
    id: gid('InventoryAdjustmentGroup', ++shop.adjustmentGroups + 9_000_000),
    createdAt: now(),
    reason,
    referenceDocumentUri: (uri as string | undefined) ?? null,
    changes: (args: Args) => {
      const items = (args.inventoryItemIds as string[] | undefined)?.map((id) => parseGid(id, 'InventoryItem'));
      const locations = (args.locationIds as string[] | undefined)?.map((id) => parseGid(id, 'Location'));
      const names = args.quantityNames as string[] | undefined;
      return changes
        .filter(
          (c) =>
            (!items || items.includes(c.itemId)) &&
            (!locations || locations.includes(c.locationId)) &&
            (!names || names.includes(c.name)),
        )
        .map((c) => ({
          name: c.name,
          delta: c.delta,
          quantityAfterChange: c.after,
          ledgerDocumentUri: null,
          item: () => itemView(ctx, shop.items.get(c.itemId) as ShopInventoryItem),
          location: () => locationView(ctx, shop.locations.find((l) => l.id === c.locationId) as ShopLocation),
        }));
    },
  });

  const inputArray = (items: unknown[] | undefined, what: string) => {
    if (items && items.length > MAX_PAGE)
      throw new GraphQLError(
        `The input array size of ${items.length} is greater than the maximum allowed of ${MAX_PAGE}.`,
        { path: [what], extensions: { code: 'MAX_INPUT_SIZE_EXCEEDED' } },
      );
  };

  /** Checks the item and location of row `i`; returns the level or pushes a userError. */
  const rowLevel = (
    errors: { field: string[]; message: string; code: string }[],
    prefix: (string | number)[],
    row: { inventoryItemId: string; locationId: string },
  ) => {
    const itemId = parseGid(row.inventoryItemId, 'InventoryItem');
    const item = itemId === null ? undefined : shop.items.get(itemId);
    if (!item || itemId === null) {
      errors.push({
        field: cleanPath(...prefix, 'inventoryItemId'),
        message: 'The specified inventory item could not be found.',
        code: 'INVALID_INVENTORY_ITEM',
      });
      return null;
    }
    const location = findLocation(ctx, row.locationId);
    if (!location) {
      errors.push({
        field: cleanPath(...prefix, 'locationId'),
        message: 'The specified location could not be found.',
        code: 'INVALID_LOCATION',
      });
      return null;
    }
    const level = store.level(shop, itemId, location.id);
    if (!level) {
      errors.push({
        field: cleanPath(...prefix, 'locationId'),
        message: 'The specified inventory item is not stocked at the location.',
        code: 'ITEM_NOT_STOCKED_AT_LOCATION',
      });
      return null;
    }
    if (!item.tracked) {
      errors.push({
        field: cleanPath(...prefix, 'inventoryItemId'),
        message: 'The quantities of an untracked inventory item cannot be changed.',
        code: 'NON_MUTABLE_INVENTORY_ITEM',
      });
      return null;
    }
    return { itemId, locationId: location.id, level };
  };

  const checkQuantityLimits = (
    errors: { field: string[]; message: string; code: string }[],
    field: string[],
    value: number,
  ) => {
    if (value < 0)
      errors.push({ field, message: 'The quantity can\u2019t be negative.', code: 'INVALID_QUANTITY_NEGATIVE' });
    else if (value > 1_000_000_000)
      errors.push({
        field,
        message: 'The quantity can\u2019t be higher than 1,000,000,000.',
        code: 'INVALID_QUANTITY_TOO_HIGH',
      });
  };

  type ReturnLineArg = {
    fulfillmentLineItemId: string;
    quantity: number;
    returnReason: string;
    returnReasonNote?: string;
    customerNote?: string;
  };
  const returnFailed = (refusal: ReturnRefusal) => ({
    return: null,
    userErrors: [{ code: refusal.code, field: refusal.field, message: refusal.message }],
  });
  function madeReturn(root: string, orderId: string, requested: boolean, lines: ReturnLineArg[]) {
    const order = findOrder(ctx, orderId);
    if (!order) return returnFailed({ field: [root, 'orderId'], message: 'Order does not exist.', code: 'NOT_FOUND' });
    const made = createReturn(store, shop, order, {
      requested,
      lines: lines.map((l) => ({
        fulfillmentLineItemId: parseGid(l.fulfillmentLineItemId, 'FulfillmentLineItem'),
        quantity: l.quantity,
        returnReason: l.returnReason,
        returnReasonNote: l.returnReasonNote ?? null,
        customerNote: l.customerNote ?? null,
      })),
    });
    if (!('ret' in made)) return returnFailed(made);
    return { return: returnView(ctx, order, made.ret), userErrors: [] };
  }
  function returnStep(
    field: string,
    id: string,
    path: string[],
    step: (store: ShopifyStore, shop: Shop, order: ShopOrder, ret: ShopReturn) => ReturnRefusal | null,
  ) {
    requireScope(ctx, field, 'write_returns', 'write_marketplace_returns');
    const hit = findReturn(shop, parseGid(id, 'Return'));
    if (!hit) return returnFailed({ field: path, message: 'Return does not exist.', code: 'NOT_FOUND' });
    const refused = step(store, shop, hit.order, hit.ret);
    if (refused) return returnFailed({ ...refused, field: path });
    return { return: returnView(ctx, hit.order, hit.ret), userErrors: [] };
  }

  /** fulfillmentCancel and fulfillmentTrackingInfoUpdate (fulfillments.ts): same scopes as fulfillmentCreate. */
  function fulfillmentChange(
    field: string,
    arg: string,
    id: unknown,
    change: typeof cancelFulfillment,
  ): { fulfillment: unknown; userErrors: { field: string[]; message: string }[] } {
    requireScope(
      ctx,
      field,
      'write_merchant_managed_fulfillment_orders',
      'write_assigned_fulfillment_orders',
      'write_third_party_fulfillment_orders',
      'write_fulfillments',
    );
    const hit = findFulfillment(shop, parseGid(id, 'Fulfillment'));
    if (!hit) return { fulfillment: null, userErrors: [{ field: [arg], message: 'Fulfillment does not exist.' }] };
    const refused = change(store, shop, hit.order, hit.fulfillment);
    if (refused) return { fulfillment: null, userErrors: [refused] };
    return { fulfillment: fulfillmentView(ctx, hit.order, hit.fulfillment), userErrors: [] };
  }

  const mutation = {
    inventorySetQuantities: (args: Args) => {
      requireScope(ctx, 'inventorySetQuantities', 'write_inventory');
      const input = args.input as {
        name: string;
        reason: string;
        referenceDocumentUri?: string;
        ignoreCompareQuantity?: boolean;
        quantities: {
          inventoryItemId: string;
          locationId: string;
          quantity: number;
          compareQuantity?: number | null;
          changeFromQuantity?: number | null;
        }[];
      };
      inputArray(input.quantities, 'quantities');
      const errors: { field: string[]; message: string; code: string }[] = [];
      if (input.name !== 'available' && input.name !== 'on_hand')
        errors.push({
          field: ['input', 'name'],
          message: 'The quantity name must be either \u2018available\u2019 or \u2018on_hand\u2019.',
          code: 'INVALID_NAME',
        });
      if (!INVENTORY_REASONS.has(input.reason))
        errors.push({
          field: ['input', 'reason'],
          message: 'The specified reason is invalid.',
          code: 'INVALID_REASON',
        });
      const changeFrom = atLeast(ctx, '2026-01');
      const seen = new Set<string>();
      const rows: { itemId: number; locationId: number; level: ShopLevel; quantity: number }[] = [];
      input.quantities.forEach((row, i) => {
        const prefix = ['input', 'quantities', i];
        const found = rowLevel(errors, prefix, row);
        if (!found) return;
        const pair = `${found.itemId}:${found.locationId}`;
        if (seen.has(pair)) {
          errors.push({
            field: cleanPath(...prefix),
            message: 'The combination of inventoryItemId and locationId must be unique.',
            code: 'NO_DUPLICATE_INVENTORY_ITEM_ID_GROUP_ID_PAIR',
          });
          return;
        }
        seen.add(pair);
        checkQuantityLimits(errors, cleanPath(...prefix, 'quantity'), row.quantity);
        const current = quantityOf(found.level, input.name === 'on_hand' ? 'on_hand' : 'available') as number;
        if (changeFrom && 'changeFromQuantity' in row) {
          if (row.changeFromQuantity != null && row.changeFromQuantity !== current)
            errors.push({
              field: cleanPath(...prefix, 'changeFromQuantity'),
              message: 'The changeFromQuantity argument no longer matches the persisted quantity.',
              code: 'CHANGE_FROM_QUANTITY_STALE',
            });
        } else if (row.compareQuantity != null) {
          if (!input.ignoreCompareQuantity && row.compareQuantity !== current)
            errors.push({
              field: cleanPath(...prefix, 'compareQuantity'),
              message: 'The compareQuantity argument no longer matches the persisted quantity.',
              code: 'COMPARE_QUANTITY_STALE',
            });
        } else if (!input.ignoreCompareQuantity) {
          errors.push({
            field: cleanPath(...prefix, 'compareQuantity'),
            message: 'The compareQuantity value is required unless ignoreCompareQuantity is true.',
            code: 'COMPARE_QUANTITY_REQUIRED',
          });
        }
        rows.push({ ...found, quantity: row.quantity });
      });
      // All or nothing, as Shopify applies the group.
      if (errors.length > 0) return { inventoryAdjustmentGroup: null, userErrors: errors };
      const at = now();
      const changes: Change[] = [];
      for (const r of rows) {
        const before = input.name === 'on_hand' ? onHand(r.level) : r.level.available;
        const delta = r.quantity - before;
        r.level.available += delta;
        if (delta !== 0) r.level.updatedAt = at;
        changes.push({
          name: 'available',
          delta,
          after: r.level.available,
          itemId: r.itemId,
          locationId: r.locationId,
        });
        changes.push({ name: 'on_hand', delta, after: onHand(r.level), itemId: r.itemId, locationId: r.locationId });
      }
      for (const r of rows) if (r.level.updatedAt === at) store.emitLevel(shop, r.itemId, r.locationId);
      return {
        inventoryAdjustmentGroup: adjustmentGroup(input.reason, input.referenceDocumentUri, changes),
        userErrors: [],
      };
    },

    inventoryAdjustQuantities: (args: Args) => {
      requireScope(ctx, 'inventoryAdjustQuantities', 'write_inventory');
      const input = args.input as {
        name: string;
        reason: string;
        referenceDocumentUri?: string;
        changes: { delta: number; inventoryItemId: string; locationId: string; changeFromQuantity?: number | null }[];
      };
      inputArray(input.changes, 'changes');
      const errors: { field: string[]; message: string; code: string }[] = [];
      const adjustable = ['available', 'damaged', 'incoming', 'quality_control', 'reserved', 'safety_stock'];
      if (!adjustable.includes(input.name))
        errors.push({
          field: ['input', 'name'],
          message: 'The quantity name is invalid.',
          code: 'INVALID_QUANTITY_NAME',
        });
      if (!INVENTORY_REASONS.has(input.reason))
        errors.push({
          field: ['input', 'reason'],
          message: 'The specified reason is invalid.',
          code: 'INVALID_REASON',
        });
      const rows: { itemId: number; locationId: number; level: ShopLevel; delta: number }[] = [];
      input.changes.forEach((row, i) => {
        const prefix = ['input', 'changes', i];
        const found = rowLevel(errors, prefix, row);
        if (!found) return;
        const field = input.name as Exclude<keyof ShopLevel, 'createdAt' | 'updatedAt'>;
        if (atLeast(ctx, '2026-01') && row.changeFromQuantity != null && row.changeFromQuantity !== found.level[field])
          errors.push({
            field: cleanPath(...prefix, 'changeFromQuantity'),
            message: 'The changeFromQuantity argument no longer matches the persisted quantity.',
            code: 'CHANGE_FROM_QUANTITY_STALE',
          });
        rows.push({ ...found, delta: row.delta });
      });
      if (errors.length > 0) return { inventoryAdjustmentGroup: null, userErrors: errors };
      const at = now();
      const changes: Change[] = [];
      const field = input.name as Exclude<keyof ShopLevel, 'createdAt' | 'updatedAt'>;
      for (const r of rows) {
        r.level[field] += r.delta;
        r.level.updatedAt = at;
        changes.push({
          name: field,
          delta: r.delta,
          after: r.level[field],
          itemId: r.itemId,
          locationId: r.locationId,
        });
        if (field !== 'incoming')
          changes.push({
            name: 'on_hand',
            delta: r.delta,
            after: onHand(r.level),
            itemId: r.itemId,
            locationId: r.locationId,
          });
      }
      if (field === 'available') for (const r of rows) store.emitLevel(shop, r.itemId, r.locationId);
      return {
        inventoryAdjustmentGroup: adjustmentGroup(input.reason, input.referenceDocumentUri, changes),
        userErrors: [],
      };
    },

    // ---- Products ---------------------------------------------------------------------------------

    productCreate: (args: Args) => {
      requireScope(ctx, 'productCreate', 'write_products');
      const input = (args.product ?? args.input) as
        | {
            title?: string;
            descriptionHtml?: string;
            vendor?: string;
            productType?: string;
            status?: ShopProduct['status'];
            tags?: string[];
            handle?: string;
            productOptions?: { name?: string; values?: { name?: string }[] }[];
          }
        | undefined;
      if (!input?.title?.trim())
        return { product: null, userErrors: [{ field: ['title'], message: "Title can't be blank" }] };
      const at = now();
      const optionInputs = input.productOptions?.length
        ? input.productOptions
        : [{ name: 'Title', values: [{ name: 'Default Title' }] }];
      const handleBase = (input.handle ?? input.title)
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '');
      let handle = handleBase;
      for (let n = 1; [...shop.products.values()].some((p) => p.handle === handle); n++) handle = `${handleBase}-${n}`;
      const product: ShopProduct = {
        id: shop.nextId(),
        title: input.title.trim(),
        handle,
        vendor: input.vendor ?? shop.name,
        productType: input.productType ?? '',
        descriptionHtml: input.descriptionHtml ?? '',
        status: input.status ?? 'ACTIVE',
        tags: input.tags ?? [],
        options: optionInputs.map((o) => ({
          id: shop.nextId(),
          name: o.name ?? 'Title',
          values: (o.values ?? []).map((v) => v.name ?? '').filter(Boolean),
        })),
        variantIds: [],
        images: mediaImages(shop, args.media),
        createdAt: at,
        updatedAt: at,
      };
      shop.products.set(product.id, product);
      // The standalone variant: the first value of every option, untracked price 0, as Shopify creates it.
      const standalone = store.addVariant(shop, product, {
        sku: '',
        barcode: null,
        price: 0,
        compareAtPrice: null,
        options: product.options.map((o) => o.values[0] ?? 'Default Title'),
        position: 1,
        at,
      });
      stockEverywhere(standalone, at);
      store.emit(shop, 'PRODUCTS_CREATE', store.productPayload(shop, product));
      return { product: productView(ctx, product), userErrors: [] };
    },

    productUpdate: (args: Args) => {
      requireScope(ctx, 'productUpdate', 'write_products');
      const input = (args.product ?? args.input) as
        | {
            id?: string;
            title?: string;
            descriptionHtml?: string;
            vendor?: string;
            productType?: string;
            status?: ShopProduct['status'];
            tags?: string[];
            handle?: string;
          }
        | undefined;
      const product = findProduct(ctx, input?.id);
      if (!input || !product)
        return { product: null, userErrors: [{ field: ['id'], message: 'Product does not exist' }] };
      if (input.title !== undefined && !input.title.trim())
        return { product: null, userErrors: [{ field: ['title'], message: "Title can't be blank" }] };
      if (input.title !== undefined) product.title = input.title.trim();
      if (input.descriptionHtml !== undefined) product.descriptionHtml = input.descriptionHtml;
      if (input.vendor !== undefined) product.vendor = input.vendor;
      if (input.productType !== undefined) product.productType = input.productType;
      if (input.status !== undefined) product.status = input.status;
      if (input.tags !== undefined) product.tags = input.tags;
      if (input.handle !== undefined) product.handle = input.handle;
      const images = mediaImages(shop, args.media);
      if (images.length) product.images.push(...images);
      touchProduct(product);
      store.emit(shop, 'PRODUCTS_UPDATE', store.productPayload(shop, product));
      return { product: productView(ctx, product), userErrors: [] };
    },

    productVariantsBulkCreate: (args: Args) => {
      requireScope(ctx, 'productVariantsBulkCreate', 'write_products');
      const product = findProduct(ctx, args.productId);
      const inputs = args.variants as VariantInput[];
      inputArray(inputs, 'variants');
      if (!product)
        return {
          product: null,
          productVariants: null,
          userErrors: [{ field: ['productId'], message: 'Product does not exist', code: 'PRODUCT_DOES_NOT_EXIST' }],
        };
      const errors: { field: string[]; message: string; code: string }[] = [];
      const standalone =
        product.variantIds.length === 1 ? (shop.variants.get(product.variantIds[0] as number) as ShopVariant) : null;
      const removeStandalone = args.strategy === 'REMOVE_STANDALONE_VARIANT' && standalone !== null;
      const existing = new Set(
        product.variantIds
          .map((id) => shop.variants.get(id) as ShopVariant)
          .filter((v) => !(removeStandalone && v === standalone))
          .map((v) => v.selectedOptions.map((o) => o.value).join('\u0000')),
      );
      const planned: { input: VariantInput; options: string[]; price: number; compareAt: number | null }[] = [];
      inputs.forEach((input, i) => {
        const options = product.options.map(
          (o) => input.optionValues?.find((v) => v.optionName === o.name)?.name ?? o.values[0] ?? 'Default Title',
        );
        const unknownOption = input.optionValues?.find((v) => !product.options.some((o) => o.name === v.optionName));
        if (unknownOption) {
          errors.push({
            field: cleanPath('variants', i, 'optionValues'),
            message: `Option ${unknownOption.optionName} does not exist`,
            code: 'OPTION_DOES_NOT_EXIST',
          });
          return;
        }
        const combo = options.join('\u0000');
        if (existing.has(combo)) {
          errors.push({
            field: cleanPath('variants', i),
            message: `The variant '${options.join(' / ')}' already exists.`,
            code: 'VARIANT_ALREADY_EXISTS',
          });
          return;
        }
        existing.add(combo);
        const price = input.price == null ? 0 : parseMoney(input.price);
        const compareAt = input.compareAtPrice == null ? null : parseMoney(input.compareAtPrice);
        if (price === null || (input.compareAtPrice != null && compareAt === null)) {
          errors.push({ field: cleanPath('variants', i, 'price'), message: 'Price is invalid', code: 'INVALID' });
          return;
        }
        for (const q of input.inventoryQuantities ?? [])
          if (!findLocation(ctx, q.locationId))
            errors.push({
              field: cleanPath('variants', i, 'inventoryQuantities'),
              message: 'The location could not be found.',
              code: 'INVALID_LOCATION',
            });
        planned.push({ input, options, price, compareAt });
      });
      if (errors.length > 0) return { product: productView(ctx, product), productVariants: null, userErrors: errors };
      const at = now();
      if (removeStandalone && standalone) removeVariant(standalone);
      for (let i = 0; i < product.options.length; i++) {
        const option = product.options[i] as ShopProduct['options'][number];
        for (const p of planned) {
          const value = p.options[i] as string;
          if (!option.values.includes(value)) option.values.push(value);
        }
        if (removeStandalone) option.values = option.values.filter((v) => planned.some((p) => p.options[i] === v));
      }
      const created = planned.map((p) => {
        const variant = store.addVariant(shop, product, {
          sku: p.input.inventoryItem?.sku ?? '',
          barcode: p.input.barcode ?? null,
          price: p.price,
          compareAtPrice: p.compareAt,
          options: p.options,
          position: product.variantIds.length + 1,
          at,
          tracked: p.input.inventoryItem?.tracked ?? true,
        });
        stockEverywhere(variant, at);
        for (const q of p.input.inventoryQuantities ?? []) {
          const loc = findLocation(ctx, q.locationId) as ShopLocation;
          store.level(shop, variant.inventoryItemId, loc.id, true, at).available = q.availableQuantity;
        }
        return variant;
      });
      product.variantIds.forEach((id, i) => {
        (shop.variants.get(id) as ShopVariant).position = i + 1;
      });
      touchProduct(product);
      store.emit(shop, 'PRODUCTS_UPDATE', store.productPayload(shop, product));
      return {
        product: productView(ctx, product),
        productVariants: created.map((v) => variantView(ctx, v)),
        userErrors: [],
      };
    },

    productVariantsBulkUpdate: (args: Args) => {
      requireScope(ctx, 'productVariantsBulkUpdate', 'write_products');
      const product = findProduct(ctx, args.productId);
      const inputs = args.variants as VariantInput[];
      inputArray(inputs, 'variants');
      if (!product)
        return {
          product: null,
          productVariants: null,
          userErrors: [{ field: ['productId'], message: 'Product does not exist', code: 'PRODUCT_DOES_NOT_EXIST' }],
        };
      const errors: { field: string[]; message: string; code: string }[] = [];
      const updates: { variant: ShopVariant; input: VariantInput; price: number | null; compareAt: number | null }[] =
        [];
      inputs.forEach((input, i) => {
        const id = parseGid(input.id, 'ProductVariant');
        const variant = id === null ? undefined : shop.variants.get(id);
        if (!variant || variant.productId !== product.id) {
          errors.push({
            field: cleanPath('variants', i, 'id'),
            message: 'Product variant does not exist',
            code: 'PRODUCT_VARIANT_DOES_NOT_EXIST',
          });
          return;
        }
        const price = input.price == null ? null : parseMoney(input.price);
        const compareAt = input.compareAtPrice == null ? null : parseMoney(input.compareAtPrice);
        if ((input.price != null && price === null) || (input.compareAtPrice != null && compareAt === null)) {
          errors.push({ field: cleanPath('variants', i, 'price'), message: 'Price is invalid', code: 'INVALID' });
          return;
        }
        if (input.inventoryQuantities?.length) {
          errors.push({
            field: cleanPath('variants', i, 'inventoryQuantities'),
            message:
              'Inventory quantities can only be provided during create. To update inventory, use inventorySetQuantities.',
            code: 'NO_INVENTORY_QUANTITIES_ON_VARIANTS_UPDATE',
          });
          return;
        }
        updates.push({ variant, input, price, compareAt });
      });
      if (errors.length > 0 && !args.allowPartialUpdates)
        return { product: productView(ctx, product), productVariants: null, userErrors: errors };
      const at = now();
      for (const { variant, input, price, compareAt } of updates) {
        if (price !== null) variant.price = price;
        if ('compareAtPrice' in input) variant.compareAtPrice = compareAt;
        if (input.barcode !== undefined) variant.barcode = input.barcode;
        if (input.inventoryItem?.sku !== undefined) variant.sku = input.inventoryItem.sku ?? '';
        if (input.inventoryItem?.tracked != null)
          (shop.items.get(variant.inventoryItemId) as ShopInventoryItem).tracked = input.inventoryItem.tracked;
        if (input.optionValues?.length) {
          for (const ov of input.optionValues) {
            const i = product.options.findIndex((o) => o.name === ov.optionName);
            const option = product.options[i];
            if (!option || !ov.name) continue;
            (variant.selectedOptions[i] as { value: string }).value = ov.name;
            if (!option.values.includes(ov.name)) option.values.push(ov.name);
          }
          variant.title = variant.selectedOptions.map((o) => o.value).join(' / ');
        }
        variant.updatedAt = at;
      }
      touchProduct(product);
      store.emit(shop, 'PRODUCTS_UPDATE', store.productPayload(shop, product));
      return {
        product: productView(ctx, product),
        productVariants: updates.map((u) => variantView(ctx, u.variant)),
        userErrors: errors,
      };
    },

    // ---- Orders -----------------------------------------------------------------------------------

    fulfillmentCreate: (args: Args) => {
      requireScope(
        ctx,
        'fulfillmentCreate',
        'write_merchant_managed_fulfillment_orders',
        'write_assigned_fulfillment_orders',
        'write_third_party_fulfillment_orders',
        'write_fulfillments',
      );
      const input = args.fulfillment as {
        notifyCustomer?: boolean;
        trackingInfo?: { company?: string; number?: string; url?: string; numbers?: string[]; urls?: string[] };
        lineItemsByFulfillmentOrder: {
          fulfillmentOrderId: string;
          fulfillmentOrderLineItems?: { id: string; quantity: number }[];
        }[];
      };
      const fail = (field: (string | number)[], message: string) => ({
        fulfillment: null,
        userErrors: [{ field: cleanPath('fulfillment', ...field), message }],
      });
      if (!input.lineItemsByFulfillmentOrder.length) return fail(['lineItemsByFulfillmentOrder'], 'must not be empty');
      let order: ShopOrder | undefined;
      const plan: {
        fo: ShopOrder['fulfillmentOrders'][number];
        line: { id: number; remainingQuantity: number; lineItemId: number };
        quantity: number;
      }[] = [];
      for (const [i, group] of input.lineItemsByFulfillmentOrder.entries()) {
        const foId = parseGid(group.fulfillmentOrderId, 'FulfillmentOrder');
        let fo: ShopOrder['fulfillmentOrders'][number] | undefined;
        for (const o of shop.orders.values()) {
          fo = o.fulfillmentOrders.find((f) => f.id === foId);
          if (fo) {
            if (order && order !== o)
              return fail(['lineItemsByFulfillmentOrder', i], 'All fulfillment orders must belong to the same order.');
            order = o;
            break;
          }
        }
        if (!fo)
          return fail(['lineItemsByFulfillmentOrder', i, 'fulfillmentOrderId'], 'Fulfillment order does not exist.');
        if (fo.status !== 'OPEN' && fo.status !== 'IN_PROGRESS')
          return fail(
            ['lineItemsByFulfillmentOrder', i],
            `Fulfillment order ${group.fulfillmentOrderId} has an unfulfillable status= ${fo.status.toLowerCase()}.`,
          );
        const current = fo;
        const lines = group.fulfillmentOrderLineItems?.length
          ? group.fulfillmentOrderLineItems.map((l) => ({
              line: current.lineItems.find((x) => x.id === parseGid(l.id, 'FulfillmentOrderLineItem')),
              quantity: l.quantity,
            }))
          : current.lineItems
              .filter((l) => l.remainingQuantity > 0)
              .map((l) => ({ line: l, quantity: l.remainingQuantity }));
        for (const [j, l] of lines.entries()) {
          const path = ['lineItemsByFulfillmentOrder', i, 'fulfillmentOrderLineItems', j];
          if (!l.line) return fail(path, 'Fulfillment order line item does not exist.');
          if (l.quantity <= 0 || l.quantity > l.line.remainingQuantity)
            return fail(
              path,
              `Invalid fulfillment order line item quantity requested (${l.quantity}, ${l.line.remainingQuantity} remaining).`,
            );
          plan.push({ fo: current, line: l.line, quantity: l.quantity });
        }
      }
      if (!order || plan.length === 0) return fail(['lineItemsByFulfillmentOrder'], 'Nothing left to fulfill.');
      const at = now();
      const t = input.trackingInfo;
      const numbers = t?.numbers ?? (t?.number ? [t.number] : []);
      const urls = t?.urls ?? (t?.url ? [t.url] : []);
      const fulfillment = {
        id: shop.nextId(),
        status: 'SUCCESS' as const,
        locationId: (plan[0] as (typeof plan)[number]).fo.locationId,
        tracking: trackingOf(t),
        lines: plan.map((p) => ({
          id: shop.nextId(),
          lineItemId: p.line.lineItemId,
          quantity: p.quantity,
          left: undefined as number | undefined,
        })),
        createdAt: at,
      };
      for (const [k, p] of plan.entries()) {
        p.line.remainingQuantity -= p.quantity;
        p.fo.status = p.fo.lineItems.every((l) => l.remainingQuantity === 0) ? 'CLOSED' : 'IN_PROGRESS';
        p.fo.updatedAt = at;
        const line = order.lineItems.find((l) => l.id === p.line.lineItemId) as ShopLineItem;
        const variant = line.variantId === null ? undefined : shop.variants.get(line.variantId);
        const level = variant && store.level(shop, variant.inventoryItemId, p.fo.locationId);
        // Shipping takes the units out of the building: committed and on hand fall, available stays. What left
        // is what a fulfillmentCancel puts back.
        const left = level ? Math.min(level.committed, p.quantity) : 0;
        if (level) {
          level.committed -= left;
          level.updatedAt = at;
        }
        (fulfillment.lines[k] as (typeof fulfillment.lines)[number]).left = left;
      }
      order.fulfillments.push(fulfillment);
      order.updatedAt = at;
      const payload = store.orderPayload(shop, order);
      store.emit(shop, 'FULFILLMENTS_CREATE', {
        id: fulfillment.id,
        order_id: order.id,
        status: 'success',
        created_at: at,
        location_id: fulfillment.locationId,
        tracking_company: t?.company ?? null,
        tracking_numbers: numbers,
        tracking_urls: urls,
        line_items: payload.line_items.filter((l) => fulfillment.lines.some((f) => f.lineItemId === l.id)),
      });
      store.emit(shop, 'ORDERS_UPDATED', payload);
      if (fulfillmentStatus(order) === 'FULFILLED') store.emit(shop, 'ORDERS_FULFILLED', payload);
      return { fulfillment: fulfillmentView(ctx, order, fulfillment), userErrors: [] };
    },

    fulfillmentCancel: (args: Args) => fulfillmentChange('fulfillmentCancel', 'id', args.id, cancelFulfillment),
    fulfillmentTrackingInfoUpdate: (args: Args) =>
      fulfillmentChange('fulfillmentTrackingInfoUpdate', 'fulfillmentId', args.fulfillmentId, (st, sh, o, f) =>
        updateFulfillmentTracking(st, sh, o, f, args.trackingInfoInput as TrackingInput),
      ),

    // Marks a local pickup fulfillment order's items ready: the order shows ready for pickup (the fulfillment
    // order in progress) and Shopify tells the customer. Only open pickup fulfillment orders with items left.
    fulfillmentOrderLineItemsPreparedForPickup: (args: Args) => {
      requireScope(ctx, 'fulfillmentOrderLineItemsPreparedForPickup', 'write_merchant_managed_fulfillment_orders');
      const input = args.input as { lineItemsByFulfillmentOrder: { fulfillmentOrderId: string }[] };
      const fail = (i: number, code: string, message: string) => ({
        userErrors: [
          { code, field: cleanPath('input', 'lineItemsByFulfillmentOrder', i, 'fulfillmentOrderId'), message },
        ],
      });
      const found: { order: ShopOrder; fo: ShopOrder['fulfillmentOrders'][number] }[] = [];
      for (const [i, group] of input.lineItemsByFulfillmentOrder.entries()) {
        const foId = parseGid(group.fulfillmentOrderId, 'FulfillmentOrder');
        let hit: (typeof found)[number] | undefined;
        for (const o of shop.orders.values()) {
          const fo = o.fulfillmentOrders.find((f) => f.id === foId);
          if (fo) hit = { order: o, fo };
        }
        if (!hit) return fail(i, 'FULFILLMENT_ORDER_INVALID', 'Fulfillment order does not exist.');
        if (hit.fo.methodType !== 'PICK_UP' || (hit.fo.status !== 'OPEN' && hit.fo.status !== 'IN_PROGRESS'))
          return fail(
            i,
            'FULFILLMENT_ORDER_INVALID',
            'Fulfillment order is not an open local pickup fulfillment order.',
          );
        if (hit.fo.lineItems.every((l) => l.remainingQuantity === 0))
          return fail(i, 'NO_LINE_ITEMS_TO_PREPARE_FOR_FULFILLMENT_ORDER', 'There are no line items to prepare.');
        found.push(hit);
      }
      const at = now();
      for (const { order, fo } of found) {
        fo.status = 'IN_PROGRESS';
        fo.preparedForPickupAt ??= at;
        fo.updatedAt = at;
        order.updatedAt = at;
      }
      for (const order of new Set(found.map((f) => f.order)))
        store.emit(shop, 'ORDERS_UPDATED', store.orderPayload(shop, order));
      return { userErrors: [] };
    },

    refundCreate: (args: Args) => {
      requireScope(ctx, 'refundCreate', 'write_orders');
      const input = args.input as {
        orderId: string;
        note?: string;
        notify?: boolean;
        refundLineItems?: { lineItemId: string; quantity: number; restockType?: string; locationId?: string }[];
        transactions?: { orderId: string; gateway: string; kind: string; amount: string; parentId?: string }[];
        shipping?: { amount?: string; fullRefund?: boolean };
      };
      const fail = (field: (string | number)[], message: string) => ({
        refund: null,
        order: null,
        userErrors: [{ field: cleanPath(...field), message }],
      });
      const order = findOrder(ctx, input.orderId);
      if (!order) return fail(['orderId'], 'Order does not exist');
      const transactions: RefundRequest['transactions'] = [];
      for (const [i, t] of (input.transactions ?? []).entries()) {
        const value = parseMoney(t.amount);
        if (value === null || value <= 0) return fail(['transactions', i, 'amount'], 'Amount must be greater than 0');
        if (t.kind !== 'REFUND') return fail(['transactions', i, 'kind'], 'Kind must be refund');
        const parentId = t.parentId ? parseGid(t.parentId, 'OrderTransaction') : null;
        if (t.parentId && parentId === null)
          return fail(['transactions', i, 'parentId'], 'Parent transaction does not exist');
        transactions.push({ amount: value, gateway: t.gateway, parentId });
      }
      const shippingAmount = input.shipping?.amount == null ? null : parseMoney(input.shipping.amount);
      if (input.shipping?.amount != null && shippingAmount === null)
        return fail(['shipping', 'amount'], 'Amount is not valid');
      const made = createRefund(store, shop, order, {
        note: input.note ?? null,
        lines: (input.refundLineItems ?? []).map((r) => ({
          lineItemId: parseGid(r.lineItemId, 'LineItem'),
          quantity: r.quantity,
          restockType: r.restockType,
          locationId: r.locationId ? (parseGid(r.locationId, 'Location') ?? -1) : null,
        })),
        transactions,
        shipping: { amount: shippingAmount, fullRefund: input.shipping?.fullRefund === true },
      });
      if (!('refund' in made)) return fail(made.field, made.message);
      const refund = made.refund;
      return { refund: refundView(ctx, order, refund), order: orderView(ctx, order), userErrors: [] };
    },

    // ---- Returns (returns.ts) ------------------------------------------------------------------------

    returnCreate: (args: Args) => {
      requireScope(ctx, 'returnCreate', 'write_returns', 'write_marketplace_returns');
      const input = args.returnInput as {
        orderId: string;
        returnLineItems: {
          fulfillmentLineItemId: string;
          quantity: number;
          returnReason: string;
          returnReasonNote?: string;
        }[];
      };
      return madeReturn('returnInput', input.orderId, false, input.returnLineItems);
    },
    returnRequest: (args: Args) => {
      requireScope(ctx, 'returnRequest', 'write_returns', 'write_marketplace_returns');
      const input = args.input as {
        orderId: string;
        returnLineItems: {
          fulfillmentLineItemId: string;
          quantity: number;
          returnReason: string;
          customerNote?: string;
        }[];
      };
      return madeReturn('input', input.orderId, true, input.returnLineItems);
    },
    returnApproveRequest: (args: Args) =>
      returnStep('returnApproveRequest', (args.input as { id: string }).id, ['input', 'id'], approveReturn),
    returnDeclineRequest: (args: Args) => {
      const input = args.input as { id: string; declineReason: string; declineNote?: string | null };
      return returnStep('returnDeclineRequest', input.id, ['input', 'id'], (st, sh, o, r) =>
        declineReturn(st, sh, o, r, { reason: input.declineReason, note: input.declineNote ?? null }),
      );
    },
    returnCancel: (args: Args) => returnStep('returnCancel', args.id as string, ['id'], cancelReturn),
    returnClose: (args: Args) => returnStep('returnClose', args.id as string, ['id'], closeReturn),
    returnReopen: (args: Args) => returnStep('returnReopen', args.id as string, ['id'], reopenReturn),

    returnRefund: (args: Args) => {
      requireScope(ctx, 'returnRefund', 'write_returns', 'write_marketplace_returns');
      requireScope(ctx, 'returnRefund', 'write_orders', 'write_marketplace_orders');
      const input = args.returnRefundInput as {
        returnId: string;
        returnRefundLineItems: { returnLineItemId: string; quantity: number }[];
        refundShipping?: { shippingRefundAmount?: { amount: string } | null; fullRefund?: boolean | null } | null;
        orderTransactions?: { transactionAmount: { amount: string }; parentId: string }[] | null;
      };
      const fail = (field: (string | number)[], message: string, code = 'INVALID') => ({
        refund: null,
        userErrors: [{ code, field: cleanPath(...field), message }],
      });
      const hit = findReturn(shop, parseGid(input.returnId, 'Return'));
      if (!hit) return fail(['returnRefundInput', 'returnId'], 'Return does not exist.', 'NOT_FOUND');
      const transactions: { amount: number; parentId: number | null }[] = [];
      for (const [i, t] of (input.orderTransactions ?? []).entries()) {
        const amount = parseMoney(t.transactionAmount.amount);
        if (amount === null || amount <= 0)
          return fail(
            ['returnRefundInput', 'orderTransactions', i, 'transactionAmount'],
            'Amount must be greater than 0.',
          );
        transactions.push({ amount, parentId: parseGid(t.parentId, 'OrderTransaction') });
      }
      const shippingAmount = input.refundShipping?.shippingRefundAmount
        ? parseMoney(input.refundShipping.shippingRefundAmount.amount)
        : null;
      const made = refundReturn(store, shop, hit.order, hit.ret, {
        lines: input.returnRefundLineItems.map((l) => ({
          returnLineItemId: parseGid(l.returnLineItemId, 'ReturnLineItem'),
          quantity: l.quantity,
        })),
        shipping: { amount: shippingAmount, fullRefund: input.refundShipping?.fullRefund === true },
        transactions,
      });
      if ('refund' in made) return { refund: refundView(ctx, hit.order, made.refund), userErrors: [] };
      return fail(['returnRefundInput', ...made.field], made.message, 'code' in made ? made.code : 'INVALID');
    },

    reverseFulfillmentOrderDispose: (args: Args) => {
      requireScope(ctx, 'reverseFulfillmentOrderDispose', 'write_returns', 'write_marketplace_returns');
      const inputs = args.dispositionInputs as {
        reverseFulfillmentOrderLineItemId: string;
        quantity: number;
        dispositionType: string;
        locationId?: string | null;
      }[];
      const done = disposeReturnLines(
        store,
        shop,
        inputs.map((d) => ({
          lineId: parseGid(d.reverseFulfillmentOrderLineItemId, 'ReverseFulfillmentOrderLineItem'),
          quantity: d.quantity,
          type: d.dispositionType,
          locationId: d.locationId ? (parseGid(d.locationId, 'Location') ?? -1) : null,
        })),
      );
      if (!('lineIds' in done))
        return {
          reverseFulfillmentOrderLineItems: null,
          userErrors: [{ code: done.code, field: done.field, message: done.message }],
        };
      return {
        reverseFulfillmentOrderLineItems: done.lineIds.map((id) => {
          const hit = findReverseLine(shop, id) as NonNullable<ReturnType<typeof findReverseLine>>;
          const view = reverseOrderView(ctx, hit.order, hit.ret, hit.rfo).lineItems({ first: MAX_PAGE }) as {
            nodes: { id: string }[];
          };
          return view.nodes.find((n) => n.id === gid('ReverseFulfillmentOrderLineItem', id));
        }),
        userErrors: [],
      };
    },

    /**
     * orderCancel (2025-01): Shopify answers with a Job that cancels the order asynchronously; the
     * simulator has done it by the time it answers (the job reads done: true when asked).
     */
    orderCancel: (args: Args) => {
      requireScope(ctx, 'orderCancel', 'write_orders', 'write_marketplace_orders');
      const fail = (field: string[], message: string, code: string) => ({
        job: null,
        orderCancelUserErrors: [{ field, message, code }],
        userErrors: [{ field, message }],
      });
      const order = findOrder(ctx, args.orderId);
      if (!order) return fail(['orderId'], 'Order does not exist', 'NOT_FOUND');
      const refused = store.cancelOrder(shop, order, {
        reason: String(args.reason),
        refund: args.refund === true,
        restock: args.restock === true,
        staffNote: (args.staffNote as string | undefined) ?? null,
      });
      if (refused) return fail(['orderId'], refused.message, refused.code);
      return {
        job: { __typename: 'Job', id: gid('Job', randomUUID()), done: false },
        orderCancelUserErrors: [],
        userErrors: [],
      };
    },

    // ---- Webhooks ---------------------------------------------------------------------------------

    webhookSubscriptionCreate: (args: Args) => {
      const topic = args.topic as WebhookTopic;
      const input = args.webhookSubscription as { callbackUrl?: string; format?: string };
      const fail = (message: string) => ({
        webhookSubscription: null,
        userErrors: [{ field: ['webhookSubscription', 'callbackUrl'], message }],
      });
      if (!WEBHOOK_TOPICS.includes(topic)) return fail('Topic is not supported');
      const granted = new Set(ctx.scope.flatMap((x) => (x.startsWith('write_') ? [x, `read_${x.slice(6)}`] : [x])));
      if (RETURN_TOPICS.has(topic) && !granted.has('read_returns') && !granted.has('read_marketplace_returns'))
        return fail(
          `You do not have permission to create webhooks with ${topicHeader(topic)} topic. Required access: read_returns.`,
        );
      if (!input.callbackUrl) return fail("Address can't be blank");
      try {
        const url = new URL(input.callbackUrl);
        if (url.protocol !== 'https:' && url.protocol !== 'http:') return fail('Address protocol is not supported');
      } catch {
        return fail('Address is invalid');
      }
      if (input.format === 'XML') return fail('Format XML is not supported by this API version');
      for (const s of shop.subscriptions.values())
        if (s.clientId === ctx.clientId && s.topic === topic && s.callbackUrl === input.callbackUrl)
          return fail('Address for this topic has already been taken');
      const at = now();
      const sub: WebhookSubscription = {
        id: shop.nextId(),
        topic,
        callbackUrl: input.callbackUrl,
        format: 'JSON',
        clientId: ctx.clientId,
        createdAt: at,
        updatedAt: at,
      };
      shop.subscriptions.set(sub.id, sub);
      return { webhookSubscription: subscriptionView(sub), userErrors: [] };
    },

    webhookSubscriptionDelete: (args: Args) => {
      const n = parseGid(args.id, 'WebhookSubscription');
      const sub = n === null ? undefined : shop.subscriptions.get(n);
      if (!sub || sub.clientId !== ctx.clientId || n === null)
        return {
          deletedWebhookSubscriptionId: null,
          userErrors: [{ field: ['id'], message: 'Webhook subscription does not exist' }],
        };
      shop.subscriptions.delete(n);
      return { deletedWebhookSubscriptionId: gid('WebhookSubscription', n), userErrors: [] };
    },
  };

  function stockEverywhere(variant: ShopVariant, at: string) {
    for (const loc of shop.locations) if (loc.isActive) store.level(shop, variant.inventoryItemId, loc.id, true, at);
  }

  function removeVariant(variant: ShopVariant) {
    const product = shop.products.get(variant.productId) as ShopProduct;
    product.variantIds = product.variantIds.filter((id) => id !== variant.id);
    shop.variants.delete(variant.id);
    shop.items.delete(variant.inventoryItemId);
    shop.levels.delete(variant.inventoryItemId);
  }

  return { ...query, ...mutation };
}

interface VariantInput {
  id?: string;
  barcode?: string | null;
  price?: string | null;
  compareAtPrice?: string | null;
  optionValues?: { optionName?: string; name?: string }[];
  inventoryItem?: { sku?: string | null; tracked?: boolean | null };
  inventoryQuantities?: { availableQuantity: number; locationId: string }[];
}

function mediaImages(shop: Shop, media: unknown) {
  return ((media as { originalSource: string; mediaContentType: string; alt?: string }[] | undefined) ?? [])
    .filter((m) => m.mediaContentType === 'IMAGE')
    .map((m) => ({ id: shop.nextId(), url: m.originalSource, altText: m.alt ?? null }));
}

export const SUPPORTED_VERSIONS: readonly string[] = API_VERSIONS;
