import { z } from 'zod';

/**
 * What we read from BigCommerce, parsed where it enters. Only the fields we use are declared; the rest
 * is ignored. V3 money is a JSON number, V2 money a decimal string.
 */
const Money = z.union([z.number(), z.string()]).nullable().optional();

export const Pagination = z.object({
  total: z.number(),
  count: z.number(),
  per_page: z.number(),
  current_page: z.number(),
  total_pages: z.number(),
});

export const V3Meta = z.object({ pagination: Pagination.optional() }).optional();

export const TokenResponse = z.object({
  access_token: z.string().min(1),
  scope: z.string(),
  context: z.string(),
  account_uuid: z.string().optional(),
  user: z.object({ id: z.number(), email: z.string().optional() }).optional(),
});

export const SignedPayloadClaims = z.object({
  sub: z.string().regex(/^stores\/[a-z0-9]+$/),
  user: z.object({ id: z.number(), email: z.string().optional(), locale: z.string().optional() }),
  owner: z.object({ id: z.number(), email: z.string().optional() }).optional(),
  url: z.string().optional(),
  channel_id: z.number().nullable().optional(),
});

export const StoreInfo = z.object({
  name: z.string(),
  currency: z.string(),
  timezone: z.object({ name: z.string() }).nullable().optional(),
});

export const Location = z.object({
  id: z.number(),
  code: z.string().optional(),
  label: z.string(),
  enabled: z.boolean(),
  type_id: z.string().optional(),
  /** Shown to shoppers as a pickup location. */
  storefront_visibility: z.boolean().optional(),
  address: z
    .object({
      address1: z.string().optional(),
      city: z.string().optional(),
      state: z.string().optional(),
      zip: z.string().optional(),
      country_code: z.string().optional(),
    })
    .nullable()
    .optional(),
});

export const Variant = z.object({
  id: z.number(),
  product_id: z.number(),
  sku: z.string().nullable().optional(),
  price: Money,
  calculated_price: Money,
  sale_price: Money,
  retail_price: Money,
  upc: z.string().nullable().optional(),
  gtin: z.string().nullable().optional(),
  option_values: z.array(z.object({ label: z.string(), option_display_name: z.string() })).optional(),
});
export type Variant = z.infer<typeof Variant>;

export const Product = z.object({
  id: z.number(),
  name: z.string(),
  sku: z.string().nullable().optional(),
  price: Money,
  sale_price: Money,
  retail_price: Money,
  brand_id: z.number().nullable().optional(),
  is_visible: z.boolean(),
  availability: z.string().optional(),
  date_modified: z.string().nullable().optional(),
  variants: z.array(Variant).optional(),
  images: z.array(z.object({ url_standard: z.string().optional(), url_zoom: z.string().optional() })).optional(),
});
export type Product = z.infer<typeof Product>;

export const Brand = z.object({ id: z.number(), name: z.string() });

export const InventoryItem = z.object({
  identity: z.object({
    sku: z.string().nullable().optional(),
    variant_id: z.number().nullable(),
    product_id: z.number(),
  }),
  locations: z.array(z.object({ location_id: z.number(), available_to_sell: z.number() })),
});

export const Order = z.object({
  id: z.number(),
  status_id: z.number(),
  status: z.string().optional(),
  date_created: z.string(),
  date_modified: z.string(),
  total_inc_tax: z.string(),
  subtotal_ex_tax: z.string().optional(),
  shipping_cost_ex_tax: z.string().optional(),
  total_tax: z.string().optional(),
  discount_amount: z.string().optional(),
  coupon_discount: z.string().optional(),
  currency_code: z.string(),
  payment_status: z.string().nullable().optional(),
  customer_message: z.string().nullable().optional(),
  billing_address: z
    .object({
      first_name: z.string().nullable().optional(),
      last_name: z.string().nullable().optional(),
      company: z.string().nullable().optional(),
      street_1: z.string().nullable().optional(),
      street_2: z.string().nullable().optional(),
      city: z.string().nullable().optional(),
      state: z.string().nullable().optional(),
      zip: z.string().nullable().optional(),
      country: z.string().nullable().optional(),
      country_iso2: z.string().nullable().optional(),
      phone: z.string().nullable().optional(),
      email: z.string().nullable().optional(),
    })
    .optional(),
  /** With include=consignments.line_items: parsed with Consignments, else a resource link. */
  consignments: z.unknown().optional(),
});
export type Order = z.infer<typeof Order>;

export const OrderProduct = z.object({
  id: z.number(),
  product_id: z.number(),
  variant_id: z.number().nullable().optional(),
  order_address_id: z.number(),
  name: z.string(),
  sku: z.string().nullable().optional(),
  quantity: z.number(),
  price_inc_tax: z.string(),
  price_ex_tax: z.string().optional(),
  total_tax: z.string().optional(),
  quantity_shipped: z.number().optional(),
  quantity_refunded: z.number().optional(),
  applied_discounts: z.array(z.object({ amount: z.union([z.string(), z.number()]) })).optional(),
});

export const ShippingAddress = z.object({
  id: z.number(),
  first_name: z.string().nullable().optional(),
  last_name: z.string().nullable().optional(),
  company: z.string().nullable().optional(),
  street_1: z.string().nullable().optional(),
  street_2: z.string().nullable().optional(),
  city: z.string().nullable().optional(),
  state: z.string().nullable().optional(),
  zip: z.string().nullable().optional(),
  country: z.string().nullable().optional(),
  country_iso2: z.string().nullable().optional(),
  phone: z.string().nullable().optional(),
  email: z.string().nullable().optional(),
  shipping_method: z.string().nullable().optional(),
});

/** `consignments` with `consignment_structure=object`: where each line ships to or is collected at. */
export const Consignments = z.object({
  shipping: z.array(ShippingAddress.extend({ line_items: z.array(OrderProduct) })).default([]),
  pickups: z
    .array(
      z.object({ location: z.object({ id: z.number() }).nullable().optional(), line_items: z.array(OrderProduct) }),
    )
    .default([]),
});
export type Consignments = z.infer<typeof Consignments>;

export const Shipment = z.object({
  id: z.number(),
  tracking_number: z.string().nullable().optional(),
  items: z.array(z.object({ order_product_id: z.number(), quantity: z.number() })),
});

export const Hook = z.object({
  id: z.number(),
  scope: z.string(),
  destination: z.string(),
  is_active: z.boolean(),
});

export const RefundMethod = z.object({ provider_id: z.string(), amount: z.number(), offline: z.boolean() });
export const RefundQuote = z.object({
  data: z.object({ total_refund_amount: z.number(), refund_methods: z.array(z.array(RefundMethod)) }),
});
export const Refund = z.object({
  id: z.number(),
  order_id: z.number().optional(),
  total_amount: z.number(),
  total_tax: z.number().nullish(),
  reason: z.string().nullish(),
  created: z.string().optional(),
  items: z
    .array(
      z.object({
        item_type: z.string(),
        item_id: z.number(),
        quantity: z.number().nullish(),
        requested_amount: z.union([z.string(), z.number()]).nullish(),
      }),
    )
    .optional(),
  payments: z
    .array(z.object({ provider_id: z.string(), amount: z.number(), is_declined: z.boolean().optional() }))
    .optional(),
});
export type Refund = z.infer<typeof Refund>;

export const WebhookBody = z.object({
  scope: z.string(),
  hash: z.string(),
  producer: z.string().regex(/^stores\/[a-z0-9]+$/),
  created_at: z.number(),
  store_id: z.union([z.string(), z.number()]).optional(),
  data: z.unknown(),
});

export const list = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), meta: V3Meta });
export const one = <T extends z.ZodType>(item: T) => z.object({ data: item });
