import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { SANDBOX_APPS } from '../apps.ts';
import type { SandboxContext, ShopSnapshot } from '../context.ts';
import { createRng, seedFrom } from '../rng.ts';
import { type SeedOptions, seedCatalog } from '../seed.ts';
import {
  gid,
  isoNow,
  onHand,
  type Shop,
  type ShopLevel,
  type ShopLocation,
  type ShopOrder,
  type ShopProduct,
  type ShopRefund,
  type ShopVariant,
  topicHeader,
  type WebhookTopic,
} from './model.ts';
import { type CancelRequest, cancelOrder, createOrder, type NewOrder } from './orders.ts';
import { inventoryLevelPayload, orderLineItemsPayload, orderPayload, productPayload, shopPayload } from './payloads.ts';
import { refundPayload } from './refunds.ts';

/**
 * The state of the simulated Shopify shops: one in-memory shop per name, created on first use and seeded
 * from the shared catalog. Everything is keyed by Shopify's own numeric ids (shown as GIDs in GraphQL and
 * as numbers in webhook payloads, as Shopify does). What a shop holds is typed in model.ts; placing and
 * cancelling an order, and an order's totals and statuses, are in orders.ts; the webhooks' REST payloads in
 * payloads.ts.
 */

export const API_VERSIONS = ['2024-10', '2025-01', '2025-04', '2025-07', '2025-10', '2026-01'] as const;
export const DEFAULT_API_VERSION = '2025-01';
/**
 * Admin GraphQL cost buckets by Shopify plan (points, points per second). A new shop is on "standard" (or the
 * sandbox's `shopify.plan` option); tests and the demo can move a shop to another plan with
 * POST /_control/shopify/{shop}/plan.
 */
export const PLANS = {
  standard: { maximumAvailable: 1000, restoreRate: 50 },
  advanced: { maximumAvailable: 4000, restoreRate: 200 },
  plus: { maximumAvailable: 20000, restoreRate: 1000 },
  enterprise: { maximumAvailable: 40000, restoreRate: 2000 },
} as const;
export type PlanName = keyof typeof PLANS;

export const SHOP_NAME = /^[a-zA-Z0-9][a-zA-Z0-9\-_]*$/;

export interface Installation {
  clientId: string;
  scope: string[];
  tokens: Set<string>;
}

/** The simulated shops, the OAuth grants and the webhooks they send. */
export class ShopifyStore {
  readonly shops = new Map<string, Shop>();
  /** access token → shop name and client id. */
  readonly tokens = new Map<string, { shop: string; clientId: string; scope: string[]; expiresAt: number | null }>();
  /** refresh token → access token it renews. */
  readonly refreshTokens = new Map<string, { shop: string; clientId: string; scope: string[]; expiresAt: number }>();
  /** shop name → client id → installation. */
  readonly installations = new Map<string, Map<string, Installation>>();
  readonly codes = new Map<string, { shop: string; clientId: string; scope: string[]; expiresAt: number }>();
  readonly ctx: SandboxContext;

  constructor(ctx: SandboxContext) {
    const plan = ctx.options.shopify?.plan;
    if (plan !== undefined && !Object.hasOwn(PLANS, plan))
      throw new Error(`Unknown Shopify plan ${plan}; one of ${Object.keys(PLANS).join(', ')}`);
    this.ctx = ctx;
  }

  /** The app credentials this simulator accepts (Shopify's Partner dashboard, for the sandbox). */
  appSecret(clientId: string): string | null {
    return clientId === SANDBOX_APPS.shopify.apiKey ? SANDBOX_APPS.shopify.apiSecret : null;
  }

  shop(name: string): Shop {
    let shop = this.shops.get(name);
    if (!shop) {
      shop = this.seed(name, {});
      this.shops.set(name, shop);
    }
    return shop;
  }

  reset(name: string, options: SeedOptions): Shop {
    const shop = this.seed(name, options);
    this.shops.set(name, shop);
    return shop;
  }

  private seed(name: string, options: SeedOptions): Shop {
    const baseSeed = options.seed ?? this.ctx.options.seed ?? 20261122;
    const size = this.ctx.options.shopSize ?? {};
    const catalog = seedCatalog({
      seed: (baseSeed ^ seedFrom(name)) >>> 0,
      products: options.products ?? size.products,
      locations: options.locations ?? size.locations,
      variantsPerProduct: options.variantsPerProduct ?? size.variantsPerProduct,
    });
    const counters = { id: 1_000_000, order: 1000 };
    const start = Date.now() - 30 * 86_400_000;
    const created = isoNow(start);
    const shop: Shop = {
      name,
      shopId: 60_000_000_000 + (seedFrom(name) % 1_000_000_000),
      currency: catalog.currency,
      createdAt: created,
      locations: [],
      products: new Map(),
      variants: new Map(),
      items: new Map(),
      levels: new Map(),
      orders: new Map(),
      subscriptions: new Map(),
      bucket: { available: -1, at: Date.now(), ...PLANS[this.ctx.options.shopify?.plan ?? 'standard'] },
      dropAfterApply: 0,
      idempotency: new Map(),
      nextId: () => 7_000_000_000_000 + ++counters.id,
      nextOrderNumber: () => ++counters.order,
      adjustmentGroups: 0,
    };
    const locationIds = new Map<string, number>();
    for (const loc of catalog.locations) {
      const id = 60_000_000_000 + shop.locations.length + 1 + (seedFrom(`${name}:${loc.key}`) % 1_000_000) * 10;
      locationIds.set(loc.key, id);
      shop.locations.push({
        id,
        name: loc.name,
        isActive: true,
        fulfillsOnlineOrders: true,
        pickup: loc.key !== 'warehouse',
        address: {
          address1: loc.address1,
          city: loc.city,
          province: loc.province,
          zip: loc.zip,
          countryCode: loc.country,
        },
        createdAt: created,
        updatedAt: created,
      });
    }
    for (const p of catalog.products) {
      const productId = shop.nextId();
      const product: ShopProduct = {
        id: productId,
        title: p.title,
        handle: p.handle,
        vendor: p.vendor,
        productType: p.productType,
        descriptionHtml: `<p>${p.description}</p>`,
        status: 'ACTIVE',
        tags: p.tags,
        options: p.optionNames.map((optionName, i) => ({
          id: shop.nextId(),
          name: optionName,
          values: [...new Set(p.variants.map((v) => v.options[i] as string))],
        })),
        variantIds: [],
        images: [],
        createdAt: created,
        updatedAt: created,
      };
      shop.products.set(productId, product);
      p.variants.forEach((v, position) => {
        const variant = this.addVariant(shop, product, {
          sku: v.sku,
          barcode: v.barcode,
          price: v.price,
          compareAtPrice: v.compareAtPrice,
          options: v.options,
          position: position + 1,
          at: created,
        });
        const stock = catalog.stock.get(v.sku);
        for (const [key, qty] of stock ?? []) {
          const level = this.level(shop, variant.inventoryItemId, locationIds.get(key) as number, true, created);
          level.available = qty;
        }
      });
    }
    this.seedOrders(shop, (baseSeed ^ seedFrom(`${name}:orders`)) >>> 0);
    return shop;
  }

  /** A few historical orders: two fulfilled, three waiting (their units committed, on top of the seed stock). */
  private seedOrders(shop: Shop, seed: number) {
    const rng = createRng(seed);
    const variants = [...shop.variants.values()];
    if (variants.length === 0 || shop.locations.length === 0) return;
    for (let n = 0; n < 5; n++) {
      const at = Date.now() - (5 - n) * 6 * 3_600_000;
      const lines = Array.from({ length: rng.int(1, 3) }, () => ({
        variant: rng.pick(variants),
        quantity: rng.int(1, 2),
      }));
      const unique = [...new Map(lines.map((l) => [l.variant.id, l])).values()];
      const location = shop.locations[n % shop.locations.length] as ShopLocation;
      const order = this.createOrder(shop, {
        lines: unique.map((l) => ({ variant: l.variant, quantity: l.quantity })),
        location,
        at: isoNow(at),
        rng,
        commit: false,
      });
      if (n < 2) {
        for (const fo of order.fulfillmentOrders) {
          order.fulfillments.push({
            id: shop.nextId(),
            status: 'SUCCESS',
            locationId: fo.locationId,
            tracking: [{ company: 'UPS', number: `1Z${String(order.id).slice(-10)}`, url: null }],
            lines: fo.lineItems.map((l) => ({
              id: shop.nextId(),
              lineItemId: l.lineItemId,
              quantity: l.remainingQuantity,
            })),
            createdAt: order.createdAt,
          });
          for (const l of fo.lineItems) l.remainingQuantity = 0;
          fo.status = 'CLOSED';
        }
      } else {
        for (const l of order.lineItems) {
          const variant = shop.variants.get(l.variantId as number) as ShopVariant;
          this.level(shop, variant.inventoryItemId, location.id, true, order.createdAt).committed += l.quantity;
        }
      }
    }
  }

  addVariant(
    shop: Shop,
    product: ShopProduct,
    input: {
      sku: string;
      barcode: string | null;
      price: number;
      compareAtPrice: number | null;
      options: string[];
      position: number;
      at: string;
      tracked?: boolean;
    },
  ): ShopVariant {
    const variant: ShopVariant = {
      id: shop.nextId(),
      productId: product.id,
      title: input.options.join(' / ') || 'Default Title',
      sku: input.sku,
      barcode: input.barcode,
      price: input.price,
      compareAtPrice: input.compareAtPrice,
      position: input.position,
      selectedOptions: product.options.map((o, i) => ({ name: o.name, value: input.options[i] ?? 'Default Title' })),
      inventoryItemId: shop.nextId(),
      createdAt: input.at,
      updatedAt: input.at,
    };
    shop.variants.set(variant.id, variant);
    shop.items.set(variant.inventoryItemId, {
      id: variant.inventoryItemId,
      variantId: variant.id,
      tracked: input.tracked ?? true,
      createdAt: input.at,
      updatedAt: input.at,
    });
    shop.levels.set(variant.inventoryItemId, new Map());
    product.variantIds.push(variant.id);
    return variant;
  }

  /** The level of an item at a location; with `create`, stocks the item there (as "activate inventory"). */
  level(shop: Shop, itemId: number, locationId: number, create: true, at?: string): ShopLevel;
  level(shop: Shop, itemId: number, locationId: number, create?: boolean): ShopLevel | undefined;
  level(shop: Shop, itemId: number, locationId: number, create = false, at = isoNow()): ShopLevel | undefined {
    const byLocation = shop.levels.get(itemId);
    if (!byLocation) return undefined;
    let level = byLocation.get(locationId);
    if (!level && create) {
      level = {
        available: 0,
        committed: 0,
        reserved: 0,
        incoming: 0,
        damaged: 0,
        safety_stock: 0,
        quality_control: 0,
        createdAt: at,
        updatedAt: at,
      };
      byLocation.set(locationId, level);
    }
    return level;
  }

  variantBySku(shop: Shop, sku: string): ShopVariant | undefined {
    for (const v of shop.variants.values()) if (v.sku === sku) return v;
    return undefined;
  }

  /** Places an order (orders.ts). */
  createOrder(shop: Shop, input: NewOrder): ShopOrder {
    return createOrder(this, shop, input);
  }

  /** Cancels an order as Shopify's orderCancel does (orders.ts). */
  cancelOrder(shop: Shop, order: ShopOrder, input: CancelRequest) {
    return cancelOrder(this, shop, order, input);
  }

  snapshot(name: string): ShopSnapshot {
    const shop = this.shop(name);
    const stock: ShopSnapshot['stock'] = {};
    const held: NonNullable<ShopSnapshot['onHand']> = {};
    for (const variant of shop.variants.values()) {
      const perLocation: Record<string, number> = {};
      const onHandAt: Record<string, number> = {};
      for (const [locationId, level] of shop.levels.get(variant.inventoryItemId) ?? []) {
        perLocation[gid('Location', locationId)] = level.available;
        onHandAt[gid('Location', locationId)] = onHand(level);
      }
      stock[variant.sku] = perLocation;
      held[variant.sku] = onHandAt;
    }
    return {
      shop: name,
      locations: shop.locations.map((l) => ({ id: gid('Location', l.id), name: l.name })),
      stock,
      onHand: held,
      products: shop.products.size,
      variants: shop.variants.size,
      orders: shop.orders.size,
    };
  }

  // ---- OAuth grants -------------------------------------------------------------------------------

  issueCode(shop: string, clientId: string, scope: string[]): string {
    const code = randomBytes(16).toString('hex');
    this.codes.set(code, { shop, clientId, scope, expiresAt: Date.now() + 60_000 });
    return code;
  }

  /** Exchanges a code (single use, one minute) for an offline token, optionally expiring with a refresh token. */
  exchangeCode(shop: string, clientId: string, code: string, expiring: boolean) {
    const grant = this.codes.get(code);
    this.codes.delete(code);
    if (!grant || grant.shop !== shop || grant.clientId !== clientId || grant.expiresAt < Date.now()) return null;
    return this.grantToken(shop, clientId, grant.scope, expiring);
  }

  refresh(shop: string, clientId: string, refreshToken: string) {
    const grant = this.refreshTokens.get(refreshToken);
    this.refreshTokens.delete(refreshToken);
    if (!grant || grant.shop !== shop || grant.clientId !== clientId || grant.expiresAt < Date.now()) return null;
    return this.grantToken(shop, clientId, grant.scope, true);
  }

  private grantToken(shop: string, clientId: string, scope: string[], expiring: boolean) {
    const accessToken = `shpat_${randomBytes(16).toString('hex')}`;
    const expiresAt = expiring ? Date.now() + 3_600_000 : null;
    this.tokens.set(accessToken, { shop, clientId, scope, expiresAt });
    let byClient = this.installations.get(shop);
    if (!byClient) {
      byClient = new Map();
      this.installations.set(shop, byClient);
    }
    const installation = byClient.get(clientId) ?? { clientId, scope, tokens: new Set<string>() };
    installation.scope = scope;
    installation.tokens.add(accessToken);
    byClient.set(clientId, installation);
    const body: Record<string, unknown> = { access_token: accessToken, scope: scope.join(',') };
    if (expiring) {
      const refreshToken = `shprt_${randomBytes(16).toString('hex')}`;
      this.refreshTokens.set(refreshToken, { shop, clientId, scope, expiresAt: Date.now() + 90 * 86_400_000 });
      body.expires_in = 3600;
      body.refresh_token = refreshToken;
      body.refresh_token_expires_in = 7_776_000;
    }
    return body;
  }

  /** The grant behind a token, or null when it is unknown, expired, revoked or for another shop. */
  authenticate(shop: string, token: string | undefined) {
    if (!token) return null;
    const grant = this.tokens.get(token);
    if (!grant || grant.shop !== shop) return null;
    if (grant.expiresAt !== null && grant.expiresAt < Date.now()) return null;
    return grant;
  }

  /** The merchant removes the app: its tokens stop working, app/uninstalled goes out, then its subscriptions go. */
  uninstall(name: string, clientId: string): boolean {
    const installation = this.installations.get(name)?.get(clientId);
    if (!installation) return false;
    for (const token of installation.tokens) this.tokens.delete(token);
    for (const [refresh, grant] of this.refreshTokens)
      if (grant.shop === name && grant.clientId === clientId) this.refreshTokens.delete(refresh);
    this.installations.get(name)?.delete(clientId);
    const shop = this.shop(name);
    this.emit(shop, 'APP_UNINSTALLED', this.shopPayload(shop), clientId);
    for (const [id, sub] of shop.subscriptions) if (sub.clientId === clientId) shop.subscriptions.delete(id);
    return true;
  }

  // ---- Webhooks -----------------------------------------------------------------------------------

  /** Sends `payload` to every subscription of `topic` (of one app, or all), signed with that app's secret. */
  emit(shop: Shop, topic: WebhookTopic, payload: unknown, onlyClientId?: string) {
    const body = JSON.stringify(payload);
    const eventId = randomUUID();
    const triggeredAt = new Date().toISOString();
    for (const sub of shop.subscriptions.values()) {
      if (sub.topic !== topic || (onlyClientId && sub.clientId !== onlyClientId)) continue;
      const secret = this.appSecret(sub.clientId);
      if (!secret) continue;
      this.ctx.webhooks.send({
        provider: 'shopify',
        shop: shop.name,
        topic: topicHeader(topic),
        url: sub.callbackUrl,
        body,
        headers: {
          'X-Shopify-Topic': topicHeader(topic),
          'X-Shopify-Hmac-Sha256': createHmac('sha256', secret).update(body, 'utf8').digest('base64'),
          'X-Shopify-Shop-Domain': `${shop.name}.myshopify.com`,
          'X-Shopify-API-Version': DEFAULT_API_VERSION,
          'X-Shopify-Webhook-Id': randomUUID(),
          'X-Shopify-Event-Id': eventId,
          'X-Shopify-Triggered-At': triggeredAt,
        },
      });
    }
  }

  // The webhook payloads (payloads.ts), here for the modules that hold only the store.

  shopPayload(shop: Shop) {
    return shopPayload(shop);
  }

  inventoryLevelPayload(itemId: number, locationId: number, level: ShopLevel) {
    return inventoryLevelPayload(itemId, locationId, level);
  }

  productPayload(shop: Shop, product: ShopProduct) {
    return productPayload(shop, product);
  }

  orderPayload(shop: Shop, order: ShopOrder) {
    return orderPayload(this, shop, order);
  }

  orderLineItemsPayload(shop: Shop, order: ShopOrder) {
    return orderLineItemsPayload(shop, order);
  }

  refundPayload(shop: Shop, order: ShopOrder, refund: ShopRefund) {
    return refundPayload(this, shop, order, refund);
  }

  /** Shopify sends inventory_levels/update for every change of `available`, whoever made it. */
  emitLevel(shop: Shop, itemId: number, locationId: number) {
    const level = this.level(shop, itemId, locationId);
    if (level) this.emit(shop, 'INVENTORY_LEVELS_UPDATE', this.inventoryLevelPayload(itemId, locationId, level));
  }
}
