import type { FastifyInstance } from 'fastify';
import type { Faults } from './faults.ts';
import type { SeedOptions } from './seed.ts';
import type { PlanName } from './shopify/store.ts';
import type { WebhookSender } from './webhooks.ts';

export interface SandboxOptions {
  /**
   * The sandbox's own public address (links in its pages, OAuth redirects). Filled in from the bound
   * port by startSandbox when not given.
   */
  publicUrl?: string;
  /** Seed for every shop's catalog; a shop's own seed is derived from it and the shop's name. */
  seed?: number;
  /** Size of a shop created on first use (the demo default is 150 products, 4 locations). */
  shopSize?: Pick<SeedOptions, 'products' | 'locations' | 'variantsPerProduct'>;
  shopify?: {
    /**
     * The plan a Shopify shop starts on, which sets its Admin GraphQL cost bucket (PLANS in shopify/store.ts).
     * Default "standard", as at Shopify (the demo and the benches rely on it); tests that do not study rate
     * limits start their shops on a bigger one. POST /_control/shopify/{shop}/plan still moves one shop.
     */
    plan?: PlanName;
  };
  stripe?: {
    /** Where Stripe events are sent (the app's /webhooks/stripe) and the secret they are signed with. */
    webhookUrl?: string;
    webhookSecret?: string;
  };
  square?: {
    /**
     * The application's webhook subscription (Square configures these per application in its developer
     * dashboard): where events go and the signature key they are signed with.
     */
    webhookUrl?: string;
    signatureKey?: string;
  };
  bigcommerce?: {
    /**
     * The app's load and uninstall callback URLs (set in BigCommerce's Developer Portal): where the control
     * panel opens the app and where a store's uninstall is posted, each with a signed_payload_jwt.
     */
    loadUrl?: string;
    uninstallUrl?: string;
    /** Requests per window per store (default 150, the Standard plan) and the window (default 30 s). */
    rateLimitQuota?: number;
    rateLimitWindowMs?: number;
  };
  /** Fastify logger setting; off by default. */
  logger?: boolean | { level: string };
  /** Webhook delivery retries (tests shorten them). */
  webhookRetryDelayMs?: number;
}

/** What a simulated shop holds now, as the control API reports it. `stock` quantities are "available". */
export interface ShopSnapshot {
  shop: string;
  locations: { id: string; name: string }[];
  /** sku → location id → quantity. */
  stock: Record<string, Record<string, number>>;
  /**
   * Shopify: sku → location id → on hand (available, committed to orders, and the other on-hand states): what the
   * shop holds, where `stock` is what it can still sell.
   */
  onHand?: Record<string, Record<string, number>>;
  products: number;
  variants: number;
  orders: number;
}

/** An order placed through `/_control/{provider}/{shop}/orders`. Providers ignore what they do not have. */
export interface PlaceOrderInput {
  lines: { sku: string; quantity: number }[];
  /** The provider's location id: a POS sale's store, a pickup order's pickup location. */
  location?: string;
  /** Default: a POS sale on Square, a shipped web order elsewhere. */
  fulfillmentType?: 'ship' | 'pickup' | 'curbside_pickup';
  customer?: { name?: string; email?: string; phone?: string };
  /** Square pickup orders: false leaves the order unpaid (paid at pickup); default true. */
  paid?: boolean;
}

/** A return made through `/_control/{provider}/{shop}/orders/{id}/return`. Money in minor units. */
export interface ReturnOrderInput {
  /** The lines taken back, by SKU (or the provider's line id); `restock` false: damaged, not put back on sale. */
  lines: { sku?: string; lineId?: string; quantity: number; restock?: boolean }[];
  /** The provider's location id the units go back to (the store the customer returned them at). */
  location?: string;
  /** What goes back to the customer; default the lines' price and tax (plus `shipping`). */
  amount?: number;
  /** Shipping refunded too (Shopify, BigCommerce). */
  shipping?: number;
  note?: string;
  /**
   * Shopify: `return` takes it through Shopify's Returns as its admin's Return flow does (a return of the lines'
   * fulfilled units, their disposal at `location`, RESTOCKED or NOT_RESTOCKED for `restock: false`, a refund of
   * the return, then the return closed) instead of a plain refund with restock. Default `refund`.
   */
  flow?: 'refund' | 'return';
}

/** What the control API can do to one provider's shops. Each shop simulator implements it. */
export interface ShopControl {
  /** Keys of the shops that exist now (shop domain prefix, store hash or merchant id). */
  shops(): string[];
  /** Replaces the shop with a freshly seeded one (creating it if needed). */
  reset(shop: string, seed: SeedOptions): ShopSnapshot;
  snapshot(shop: string): ShopSnapshot;
  /**
   * Sets (quantity) or changes (delta) stock as a merchant would in the provider's own admin, and sends
   * the provider's inventory webhook. `location` is the provider's location id; default the first one.
   */
  adjustStock(shop: string, change: { sku: string; location?: string; quantity?: number; delta?: number }): void;
  /**
   * A sale: a POS sale at a Square location, a web order on Shopify or BigCommerce. Decrements stock and
   * sends the provider's order and inventory webhooks.
   */
  placeOrder(shop: string, order: PlaceOrderInput): { orderId: string };
  /**
   * Cancels an order as the merchant would in the provider's admin (restocking as the provider does and
   * sending its order webhooks). Throw an error with statusCode 404 for an unknown order, 400 for one the
   * provider would not cancel.
   */
  cancelOrder?(shop: string, orderId: string, body: Record<string, unknown>): Promise<unknown> | unknown;
  /**
   * The merchant takes goods back and refunds them in the provider's own admin (Shopify's Refund dialog with
   * Restock, BigCommerce's refund, a Square POS itemized return at the register): stock goes back as the
   * provider does, and its webhooks go out. 404 for an unknown order, 400 for one the provider would refuse.
   */
  returnOrder?(shop: string, orderId: string, body: ReturnOrderInput): Promise<unknown> | unknown;
  /** GET /_control/{provider}/{shop}/orders/{id}: the order as the provider's own API shows it. 404 when unknown. */
  getOrder?(shop: string, orderId: string): unknown;
  /**
   * Provider-specific control actions, posted to `/_control/{provider}/{shop}/{action}` (e.g. BigCommerce's
   * `uninstall`). Throw an error with statusCode 404 for an unknown action.
   */
  action?(shop: string, action: string, body: unknown): Promise<unknown> | unknown;
}

export interface SandboxContext {
  readonly options: SandboxOptions;
  /** The sandbox's public address, without a trailing slash. */
  url(): string;
  readonly faults: Faults;
  readonly webhooks: WebhookSender;
  registerControl(provider: 'shopify' | 'bigcommerce' | 'square', control: ShopControl): void;
}

/** A provider simulator: registers its routes (under the prefix it was mounted at) and its control. */
export type ProviderSimulator = (app: FastifyInstance, ctx: SandboxContext) => Promise<void> | void;
