import { createHmac, randomUUID } from 'node:crypto';
import type { SandboxContext } from '../context.ts';
import type { SeedOptions } from '../seed.ts';
import { squareId } from './ids.ts';
import type { Environment, SquareEvent } from './model.ts';
import { Merchant } from './state.ts';

export const ALL_SCOPES = [
  'MERCHANT_PROFILE_READ',
  'ITEMS_READ',
  'ITEMS_WRITE',
  'INVENTORY_READ',
  'INVENTORY_WRITE',
  'ORDERS_READ',
  'ORDERS_WRITE',
  'PAYMENTS_READ',
  'PAYMENTS_WRITE',
] as const;

/** Which scope each webhook event needs the seller to have granted. */
const EVENT_SCOPE: Record<string, string | null> = {
  'inventory.count.updated': 'INVENTORY_READ',
  'order.created': 'ORDERS_READ',
  'order.updated': 'ORDERS_READ',
  'order.fulfillment.updated': 'ORDERS_READ',
  'refund.created': 'PAYMENTS_READ',
  'refund.updated': 'PAYMENTS_READ',
  'catalog.version.updated': 'ITEMS_READ',
  'oauth.authorization.revoked': null,
};

export interface AccessToken {
  token: string;
  merchantId: string;
  clientId: string;
  scopes: string[];
  expiresAt: number;
  revoked: boolean;
}

export interface Authorization {
  refreshToken: string;
  merchantId: string;
  clientId: string;
  scopes: string[];
  revoked: boolean;
}

interface AuthorizationCode {
  merchantId: string;
  clientId: string;
  scopes: string[];
  redirectUri: string;
  expiresAt: number;
  used: boolean;
}

export const ACCESS_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;
const CODE_TTL_MS = 5 * 60 * 1000;

/** Square timestamps in OAuth answers have whole seconds: 2026-07-01T12:00:00Z. */
export const seconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** One Square environment (production or sandbox host): its sellers and the grants they gave the app. */
export class SquareStore {
  readonly environment: Environment;
  readonly merchants = new Map<string, Merchant>();
  readonly tokens = new Map<string, AccessToken>();
  readonly authorizations = new Map<string, Authorization>();
  private readonly codes = new Map<string, AuthorizationCode>();
  private readonly ctx: SandboxContext;

  constructor(environment: Environment, ctx: SandboxContext) {
    this.environment = environment;
    this.ctx = ctx;
  }

  /** The merchant a business name signs in as: the same name on the same host is the same seller. */
  merchantIdFor(businessName: string) {
    return squareId.stable(`square:${this.environment}:${businessName.trim().toLowerCase()}`, 13);
  }

  ensureMerchant(id: string, businessName: string, seed: SeedOptions = {}): Merchant {
    let merchant = this.merchants.get(id);
    if (!merchant) {
      merchant = new Merchant(id, this.environment, businessName, (event) => this.event(id, event), {
        ...this.ctx.options.shopSize,
        seed: this.ctx.options.seed,
        ...seed,
      });
      this.merchants.set(id, merchant);
    }
    return merchant;
  }

  issueCode(input: Omit<AuthorizationCode, 'expiresAt' | 'used'>): string {
    const code = squareId.secret('sq0cgp-', 22);
    this.codes.set(code, { ...input, expiresAt: Date.now() + CODE_TTL_MS, used: false });
    return code;
  }

  /** Whose code this is (without using it up). */
  codeMerchant(code: string): string | undefined {
    return this.codes.get(code)?.merchantId;
  }

  /** Codes are single-use and short-lived; a redirect_uri given at authorize must be sent again. */
  redeemCode(code: string, clientId: string, redirectUri: string | undefined): AuthorizationCode | string {
    const grant = this.codes.get(code);
    if (!grant || grant.clientId !== clientId) return 'Authorization code not found.';
    if (grant.used) return 'Authorization code has already been redeemed.';
    if (grant.expiresAt < Date.now()) return 'Authorization code has expired.';
    if (grant.redirectUri && redirectUri !== grant.redirectUri)
      return 'redirect_uri does not match the authorize request.';
    grant.used = true;
    return grant;
  }

  issueToken(auth: Authorization): AccessToken {
    const token: AccessToken = {
      token: squareId.secret('EAAA', 60),
      merchantId: auth.merchantId,
      clientId: auth.clientId,
      scopes: auth.scopes,
      expiresAt: Date.now() + ACCESS_TOKEN_TTL_MS,
      revoked: false,
    };
    this.tokens.set(token.token, token);
    return token;
  }

  authorize(merchantId: string, clientId: string, scopes: string[]): Authorization {
    const auth: Authorization = {
      refreshToken: squareId.secret('EQAA', 60),
      merchantId,
      clientId,
      scopes,
      revoked: false,
    };
    this.authorizations.set(auth.refreshToken, auth);
    return auth;
  }

  /** Revokes the app's access to a seller (every token, or only access tokens). */
  revoke(merchantId: string, clientId: string, onlyAccessTokens: boolean) {
    let any = false;
    for (const t of this.tokens.values()) {
      if (t.merchantId === merchantId && t.clientId === clientId && !t.revoked) {
        t.revoked = true;
        any = true;
      }
    }
    if (!onlyAccessTokens) {
      for (const a of this.authorizations.values()) {
        if (a.merchantId === merchantId && a.clientId === clientId && !a.revoked) {
          a.revoked = true;
          any = true;
        }
      }
      if (any) {
        this.send(merchantId, 'oauth.authorization.revoked', {
          type: 'revocation',
          id: randomUUID(),
          object: { revocation: { revoked_at: new Date().toISOString(), revoker_type: 'APPLICATION' } },
        });
      }
    }
    return any;
  }

  /** The scopes the seller has granted the app, or null when the app has no live grant. */
  private grantedScopes(merchantId: string): Set<string> | null {
    let scopes: Set<string> | null = null;
    for (const a of this.authorizations.values()) {
      if (a.merchantId !== merchantId || a.revoked) continue;
      scopes ??= new Set();
      for (const s of a.scopes) scopes.add(s);
    }
    return scopes;
  }

  private event(merchantId: string, event: SquareEvent) {
    const id = randomUUID();
    if (event.type === 'inventory.count.updated') {
      this.send(merchantId, event.type, { type: 'inventory_counts', id, object: { inventory_counts: event.counts } });
    } else if (event.type === 'catalog.version.updated') {
      this.send(merchantId, event.type, {
        type: 'catalog',
        id,
        object: { catalog_version: { updated_at: event.updatedAt } },
      });
    } else if ('order' in event) {
      // Square's order events are thin: which order, its state and version (fetch the order for the rest).
      const { order } = event;
      const common = {
        created_at: order.created_at,
        location_id: order.location_id,
        order_id: order.id,
        state: order.state,
        version: order.version,
      };
      let key = 'order_created';
      let object: Record<string, unknown> = common;
      if (event.type === 'order.updated') {
        key = 'order_updated';
        object = { ...common, updated_at: order.updated_at };
      } else if (event.type === 'order.fulfillment.updated') {
        key = 'order_fulfillment_updated';
        object = { ...common, updated_at: order.updated_at, fulfillment_update: event.updates };
      }
      this.send(merchantId, event.type, { type: key, id: order.id, object: { [key]: object } });
    } else {
      this.send(merchantId, event.type, { type: 'refund', id: event.refund.id, object: { refund: event.refund } });
    }
  }

  /**
   * Delivers an event to the application's subscription (ctx.options.square), signed as Square signs:
   * base64 HMAC-SHA256 over notification URL + body. Only for sellers who granted the event's scope.
   */
  send(merchantId: string, type: string, data: Record<string, unknown>) {
    const url = this.ctx.options.square?.webhookUrl;
    const key = this.ctx.options.square?.signatureKey;
    if (!url || !key) return;
    const needed = EVENT_SCOPE[type];
    if (needed !== null) {
      const scopes = this.grantedScopes(merchantId);
      if (!scopes || (needed && !scopes.has(needed))) return;
    }
    const createdAt = new Date().toISOString();
    const body = JSON.stringify({ merchant_id: merchantId, type, event_id: randomUUID(), created_at: createdAt, data });
    const signature = createHmac('sha256', key)
      .update(url + body)
      .digest('base64');
    this.ctx.webhooks.send({
      provider: 'square',
      shop: merchantId,
      topic: type,
      url,
      body,
      headers: {
        'x-square-hmacsha256-signature': signature,
        'square-environment': this.environment === 'sandbox' ? 'Sandbox' : 'Production',
        'square-initial-delivery-timestamp': createdAt,
        'square-retry-number': '0',
        'user-agent': 'Square Connect v2',
      },
    });
  }
}
