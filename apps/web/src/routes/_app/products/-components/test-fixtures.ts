import type {
  AccountCatalogs,
  ChannelSummary,
  Location,
  ProductDetail,
  ProductListItem,
  ProductListResult,
} from '@switchyard/contracts';
import { DEFAULT_FEATURES } from '@switchyard/contracts';

/** Shapes the products screens' tests answer with (tests only). */

const AT = new Date('2026-11-20T08:30:00Z');

export function channel(
  overrides: Partial<ChannelSummary> & Pick<ChannelSummary, 'id' | 'type' | 'name'>,
): ChannelSummary {
  return {
    status: 'connected',
    externalId: null,
    statusMessage: null,
    features: DEFAULT_FEATURES,
    connectedAt: AT,
    lastSyncAt: null,
    errorCount: 0,
    createdAt: AT,
    ...overrides,
  };
}

export const SHOP = channel({ id: 'chn_shop', type: 'shopify', name: 'Harbor Shop' });
export const POS = channel({ id: 'chn_pos', type: 'square', name: 'Harbor Stores' });

export const CATALOGS: AccountCatalogs = {
  account: {
    id: 'a-1',
    business: 'Analytical Engines Ltd',
    status: 'active',
    phone: null,
    addressLine1: null,
    city: null,
    postcode: null,
    country: 'US',
    timezone: 'UTC',
    currency: 'USD',
  },
  accountSettings: [],
};

export function location(id: string, name: string, storeId: string, enabled = true): Location {
  return {
    id,
    name,
    store_id: storeId,
    enabled,
    ships: true,
    pickup: false,
    priority: 0,
    address: {},
    created_at: AT,
    updated_at: AT,
  };
}

export const LOCATIONS = [location('loc_main', 'Main Street', 'SQ_MAIN'), location('loc_pier', 'Pier 39', 'SQ_PIER')];

export function row(
  overrides: Partial<ProductListItem> & Pick<ProductListItem, 'id' | 'productId' | 'sku'>,
): ProductListItem {
  return {
    title: 'Linen shirt',
    variantTitle: '',
    alu: null,
    barcode: null,
    brand: 'Harbor',
    productType: 'Shirts',
    status: 'active',
    image: null,
    price: 2500,
    compareAtPrice: null,
    variantCount: 1,
    onHand: 7,
    reserved: 0,
    syncStatusCode: 1,
    listing: null,
    updatedAt: AT,
    ...overrides,
  };
}

export function page(
  results: ProductListItem[],
  total = results.length,
  currentPage = 1,
  limit = 25,
): ProductListResult {
  return { results, pagination: { total, limit, currentPage } };
}

export function product(overrides: Partial<ProductDetail> = {}): ProductDetail {
  return {
    id: 'prod_1',
    title: 'Linen shirt',
    description: 'Light and cool.',
    brand: 'Harbor',
    productType: 'Shirts',
    status: 'active',
    images: [],
    createdAt: AT,
    updatedAt: AT,
    variants: [
      {
        id: 'var_1',
        sku: 'LIN-S',
        alu: 'A-100',
        barcode: '0001',
        title: 'Small',
        price: 2500,
        compareAtPrice: 3000,
        position: 0,
        stock: [
          {
            locationId: 'loc_main',
            locationName: 'Main Street',
            storeId: 'SQ_MAIN',
            enabled: true,
            onHand: 12,
            reserved: 2,
            updatedAt: AT,
          },
          {
            locationId: 'loc_pier',
            locationName: 'Pier 39',
            storeId: 'SQ_PIER',
            enabled: true,
            onHand: 0,
            reserved: 0,
            updatedAt: null,
          },
        ],
        available: [
          {
            channelId: 'chn_shop',
            channelName: 'Harbor Shop',
            channelType: 'shopify',
            externalLocationId: 'gid://shopify/Location/1',
            externalLocationName: 'Shop warehouse',
            locationId: 'loc_main',
            locationName: 'Main Street',
            storeId: 'SQ_MAIN',
            onHand: 12,
            reserved: 2,
            buffer: 3,
            safetyStock: 1,
            available: 6,
            pushedQty: 6,
            pushedAt: AT,
            pendingQty: null,
            pendingAt: null,
            acknowledgedAt: AT,
            channelQty: 6,
            channelQtyAt: AT,
            inSync: true,
            lastError: null,
          },
        ],
        listings: [
          {
            id: 'lst_1',
            channelId: 'chn_shop',
            channelName: 'Harbor Shop',
            channelType: 'shopify',
            externalProductId: 'gid://shopify/Product/9',
            externalVariantId: 'gid://shopify/ProductVariant/91',
            inventoryItemId: 'gid://shopify/InventoryItem/911',
            syncStatusCode: 3,
            lastError: 'Shopify refused the price',
            lastSyncedAt: AT,
          },
        ],
      },
    ],
    movements: [
      {
        id: 1,
        variantId: 'var_1',
        sku: 'LIN-S',
        locationId: 'loc_main',
        locationName: 'Main Street',
        delta: -1,
        reservedDelta: 0,
        onHandAfter: 12,
        reason: 'channel',
        source: 'square',
        reference: 'order 77',
        userId: null,
        userEmail: null,
        createdAt: AT,
      },
    ],
    syncs: [
      {
        id: 42,
        type: 'inventory_push',
        status: 'partial',
        trigger: 'change',
        channelId: 'chn_shop',
        channelName: 'Harbor Shop',
        total: 10,
        processed: 10,
        failed: 1,
        message: null,
        itemError: 'Shopify refused the price',
        createdAt: AT,
        finishedAt: AT,
      },
    ],
    ...overrides,
  };
}
