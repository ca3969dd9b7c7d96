import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { SANDBOX_APPS } from '../apps.ts';
import type { SandboxContext } from '../context.ts';
import { seedFrom } from '../rng.ts';
import { type SeedOptions, seedCatalog } from '../seed.ts';
import { type BcHook, type BcOrder, type BcStock, type BcStore, buildStore, stockKey } from './state.ts';
import { scopeMatches } from './support.ts';

/** The apps BigCommerce knows: client id → secret (the sandbox's one registered app). */
export const BC_APPS = new Map<string, string>([
  [SANDBOX_APPS.bigcommerce.clientId, SANDBOX_APPS.bigcommerce.clientSecret],
]);

const DEFAULT_SEED = 20261122;

export interface AuthCode {
  clientId: string;
  hash: string;
  scope: string;
  redirectUri: string;
  expiresAt: number;
  accountUuid: string;
}

/** base64url without padding, for JWTs. */
const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/** HS256 JWT, as BigCommerce signs `signed_payload_jwt` with the app's client secret. */
export function signJwt(claims: Record<string, unknown>, secret: string): string {
  const head = b64url(JSON.stringify({ typ: 'JWT', alg: 'HS256' }));
  const body = b64url(JSON.stringify(claims));
  const sig = createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}

/** Everything the BigCommerce simulator holds, across stores. */
export class BigCommerceSim {
  readonly ctx: SandboxContext;
  readonly stores = new Map<string, BcStore>();
  readonly codes = new Map<string, AuthCode>();
  private eventSeq = 0;
  /**
   * Bumped when the app reactivates a hook: a delivery that gives up deactivates its hook, unless the hook
   * was reactivated since that delivery was sent.
   */
  private readonly generations = new WeakMap<BcHook, number>();
  /** Makes a refund as POST …/payment_actions/refunds does (set by the order routes): the rendered refund or why not. */
  refundOrder: (
    store: BcStore,
    order: BcOrder,
    body: Record<string, unknown>,
  ) => { refund: Record<string, unknown> } | { status: number; title: string } = () => ({
    status: 503,
    title: 'Refunds are not served',
  });

  /** What a refund of these items comes to, in cents (set by the order routes), or why it cannot be made. */
  quoteRefund: (order: BcOrder, items: unknown) => { total: number; tax: number } | { error: string } = () => ({
    error: 'Refunds are not served',
  });

  constructor(ctx: SandboxContext) {
    this.ctx = ctx;
  }

  /** A store, created (seeded) on first use. */
  store(hash: string): BcStore {
    let store = this.stores.get(hash);
    if (!store) {
      store = this.seed(hash, {});
    }
    return store;
  }

  seed(hash: string, options: SeedOptions): BcStore {
    const seed = ((options.seed ?? this.ctx.options.seed ?? DEFAULT_SEED) ^ seedFrom(hash)) >>> 0;
    const catalog = seedCatalog({ ...this.ctx.options.shopSize, ...options, seed });
    const previous = this.stores.get(hash);
    const store = buildStore(hash, catalog, seed);
    // A reset re-seeds the catalog; the apps installed and their hooks stay, as a reset store's would.
    if (previous) {
      store.tokens = previous.tokens;
      store.hooks = previous.hooks;
      store.seq.hook = previous.seq.hook;
      store.plan = previous.plan;
    }
    this.stores.set(hash, store);
    return store;
  }

  quota(store?: BcStore) {
    if (store?.plan) return { quota: store.plan.quota, windowMs: store.plan.windowMs };
    return {
      quota: this.ctx.options.bigcommerce?.rateLimitQuota ?? 150,
      windowMs: this.ctx.options.bigcommerce?.rateLimitWindowMs ?? 30_000,
    };
  }

  issueToken(store: BcStore, clientId: string, scope: string): string {
    // One token per store and app: a re-install replaces it.
    for (const [token, grant] of store.tokens) if (grant.clientId === clientId) store.tokens.delete(token);
    const token = randomBytes(16).toString('hex');
    store.tokens.set(token, { clientId, scope });
    return token;
  }

  /** `signed_payload_jwt` for the load, uninstall and remove-user callbacks. */
  signedPayload(store: BcStore, clientId: string, url = '/'): string {
    const secret = BC_APPS.get(clientId) ?? '';
    const now = Math.floor(Date.now() / 1000);
    return signJwt(
      {
        aud: clientId,
        iss: 'bc',
        iat: now,
        nbf: now - 5,
        exp: now + 24 * 3600,
        jti: randomUUID(),
        sub: `stores/${store.hash}`,
        user: { id: 24654, email: 'merchant@example.com', locale: 'en-US' },
        owner: { id: 12345, email: 'merchant@example.com' },
        url,
        channel_id: null,
      },
      secret,
    );
  }

  /**
   * Sends an event to every active hook whose scope matches: a thin payload with `producer` and a `hash`,
   * signed the Standard Webhooks way with the hook's app client secret, plus the hook's own headers.
   */
  emit(store: BcStore, scope: string, data: Record<string, unknown>) {
    const createdAt = Math.floor(Date.now() / 1000);
    const seq = ++this.eventSeq;
    const hash = createHash('sha1')
      .update(`${store.hash}:${scope}:${seq}:${JSON.stringify(data)}`)
      .digest('hex');
    for (const hook of store.hooks.values()) {
      if (!hook.isActive || !scopeMatches(hook.scope, scope)) continue;
      const secret = BC_APPS.get(hook.clientId);
      if (!secret) continue;
      const body = JSON.stringify({
        created_at: createdAt,
        store_id: store.storeId,
        producer: `stores/${store.hash}`,
        scope,
        hash,
        data,
      });
      const id = `msg_${hash.slice(0, 24)}${hook.id}`;
      const signature = createHmac('sha256', Buffer.from(secret, 'utf8'))
        .update(`${id}.${createdAt}.${body}`)
        .digest('base64');
      const generation = this.generations.get(hook) ?? 0;
      this.ctx.webhooks.send({
        provider: 'bigcommerce',
        shop: store.hash,
        topic: scope,
        url: hook.destination,
        headers: {
          ...hook.headers,
          'webhook-id': id,
          'webhook-timestamp': String(createdAt),
          'webhook-signature': `v1,${signature}`,
        },
        body,
        onFailed: () => {
          if ((this.generations.get(hook) ?? 0) !== generation) return;
          hook.isActive = false;
          hook.updatedAt = Date.now();
        },
      });
    }
  }

  /**
   * BigCommerce deactivates a hook once a delivery has failed its last retry (and e-mails the app's
   * owner); the app must reactivate it with PUT is_active=true. Deliveries sent before that no longer count.
   */
  reactivated(hook: BcHook) {
    this.generations.set(hook, (this.generations.get(hook) ?? 0) + 1);
  }

  /** Stock at (variant, location), created empty when a variant is first stocked there. */
  stock(store: BcStore, variantId: number, locationId: number): BcStock {
    const key = stockKey(variantId, locationId);
    let level = store.stock.get(key);
    if (!level) {
      level = { onHand: 0, safetyStock: 0, absoluteSet: false };
      store.stock.set(key, level);
    }
    return level;
  }

  /**
   * Changes stock and sends the inventory webhooks BigCommerce sends: the variant-level
   * `store/sku/inventory/updated` and the location-aware `…/inventory/product/stock_changed`.
   */
  changeStock(
    store: BcStore,
    variantId: number,
    locationId: number,
    change: { absolute?: number; delta?: number },
  ): void {
    const variant = store.variants.get(variantId);
    if (!variant) return;
    const level = this.stock(store, variantId, locationId);
    const before = level.onHand;
    if (change.absolute !== undefined) {
      level.onHand = change.absolute;
      level.absoluteSet = true;
    } else {
      level.onHand += change.delta ?? 0;
    }
    const product = store.products.get(variant.productId);
    if (product) product.modifiedAt = Date.now();
    if (level.onHand === before) return;
    this.emit(store, 'store/sku/inventory/updated', {
      type: 'sku',
      id: variant.skuId,
      inventory: {
        product_id: variant.productId,
        variant_id: variant.id,
        method: change.absolute !== undefined ? 'absolute' : 'relative',
        value: level.onHand - before,
      },
    });
    this.emit(store, 'store/channel/1/inventory/product/stock_changed', {
      product_id: variant.productId,
      variant_id: variant.id,
      location_id: locationId,
    });
  }

  /**
   * The merchant removes the app: the store/app/uninstalled webhook, then BigCommerce's uninstall
   * callback (a GET with signed_payload_jwt) when the app has one; the app's token and hooks are gone.
   * Null when the app was not installed.
   */
  async uninstall(store: BcStore, clientId: string) {
    const installed = [...store.tokens.values()].some((g) => g.clientId === clientId);
    if (!installed) return null;
    this.emit(store, 'store/app/uninstalled', { type: 'store', id: store.storeId });
    for (const [token, grant] of store.tokens) if (grant.clientId === clientId) store.tokens.delete(token);
    for (const [id, hook] of store.hooks) if (hook.clientId === clientId) store.hooks.delete(id);
    // Only the app's registered callback, as BigCommerce does: a control call cannot make the simulator fetch an
    // address of its choosing.
    const callback = this.ctx.options.bigcommerce?.uninstallUrl;
    let callbackStatus: number | null = null;
    if (callback) {
      const target = new URL(callback);
      target.searchParams.set('signed_payload_jwt', this.signedPayload(store, clientId));
      try {
        const res = await fetch(target, { signal: AbortSignal.timeout(5000) });
        callbackStatus = res.status;
        await res.arrayBuffer().catch(() => undefined);
      } catch {
        callbackStatus = null;
      }
    }
    return { ok: true, callbackStatus };
  }
}
