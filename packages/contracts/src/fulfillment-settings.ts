import { z } from 'zod';

/**
 * Settings → Fulfillment (issue 15): the stored shipping location (SPEC §3: `{ store_id }`, the store the
 * fulfillment queue opens on) and the texts of the two pickup e-mails, with placeholders. Both are account
 * settings; the preview on the page and the outbox render the texts with the same function below.
 *
 * Calls: `fulfillment.settings()` → FulfillmentSettings; `fulfillment.setShippingLocation(ShippingLocationInput)`
 * and `fulfillment.updatePickupEmails(PickupEmails)` → FulfillmentSettings.
 */

/** The account setting that holds the pickup e-mail texts (absent: the defaults below). */
export const PICKUP_EMAILS_SETTING = 'pickup_emails';

export const PICKUP_PLACEHOLDERS = {
  first_name: "The customer's first name (“there” when the order has none)",
  customer_name: "The customer's full name",
  shop_name: 'Your business name',
  order_number: 'The order number',
  store_name: 'The pickup store',
  store_address: "The store's address",
  pickup_type: '“pickup” or “curbside pickup”',
  items: 'The items, such as “2 × Red mug; 1 × Cap”',
  pickup_instructions: 'What to do on arrival: at the counter, or curbside',
} as const;
export type PickupPlaceholder = keyof typeof PICKUP_PLACEHOLDERS;
export const PICKUP_PLACEHOLDER_KEYS = Object.keys(PICKUP_PLACEHOLDERS) as PickupPlaceholder[];

/** What {pickup_instructions} says, in-store and curbside. */
export const PICKUP_INSTRUCTIONS = {
  pickup: 'Show this e-mail or your order number at the counter.',
  curbside_pickup:
    'Park in a pickup spot and reply to this e-mail or call the store with your order number: we bring it out to your car.',
} as const;

export const PICKUP_EMAIL_STAGES = ['ready', 'picked_up'] as const;
export type PickupEmailStage = (typeof PICKUP_EMAIL_STAGES)[number];
export const PICKUP_EMAIL_LABELS: Record<PickupEmailStage, string> = {
  ready: 'Ready for pickup',
  picked_up: 'Picked up',
};

export const PICKUP_SUBJECT_MAX = 200;
export const PICKUP_BODY_MAX = 5000;

const PLACEHOLDER = /\{([^{}\s]*)\}/g;

/** The `{…}` tokens of a text that are not placeholders (each once). */
export function unknownPlaceholders(text: string): string[] {
  const known = new Set<string>(PICKUP_PLACEHOLDER_KEYS);
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1] ?? '').filter((k) => !known.has(k)))];
}

const placeholdersOk = (text: string, ctx: z.RefinementCtx) => {
  const unknown = unknownPlaceholders(text);
  if (unknown.length)
    ctx.addIssue({
      code: 'custom',
      message: `${unknown.map((k) => `{${k}}`).join(', ')} ${unknown.length === 1 ? 'is not a placeholder' : 'are not placeholders'}. Use ${PICKUP_PLACEHOLDER_KEYS.map((k) => `{${k}}`).join(', ')}.`,
    });
};

export const PickupEmailText = z.object({
  subject: z
    .string()
    .trim()
    .min(1, 'Write a subject.')
    .max(PICKUP_SUBJECT_MAX, `Keep the subject to ${PICKUP_SUBJECT_MAX} characters.`)
    .refine((s) => !/[\r\n]/.test(s), 'A subject is one line.')
    .superRefine(placeholdersOk),
  body: z
    .string()
    .trim()
    .min(1, "Write the e-mail's text.")
    .max(PICKUP_BODY_MAX, `Keep the text to ${PICKUP_BODY_MAX} characters.`)
    .superRefine(placeholdersOk),
});
export type PickupEmailText = z.infer<typeof PickupEmailText>;

export const PickupEmails = z.object({ ready: PickupEmailText, picked_up: PickupEmailText });
export type PickupEmails = z.infer<typeof PickupEmails>;

/** Today's texts: what every account sends until it edits them. */
export const DEFAULT_PICKUP_EMAILS: PickupEmails = {
  ready: {
    subject: 'Your order {order_number} is ready for pickup',
    body: [
      'Hello {first_name},',
      'Good news: your {shop_name} order {order_number} is ready for {pickup_type} at {store_name}, {store_address}.',
      'In the bag: {items}.',
      '{pickup_instructions}',
      'We keep your order for 7 days. Questions? Reply to this e-mail.',
    ].join('\n\n'),
  },
  picked_up: {
    subject: 'You picked up order {order_number}',
    body: [
      'Hello {first_name},',
      'Your {shop_name} order {order_number} was picked up at {store_name}. Thank you!',
      'Items: {items}.',
      'If you did not pick this order up, reply to this e-mail at once.',
    ].join('\n\n'),
  },
};

export type PickupValues = Record<PickupPlaceholder, string>;

/**
 * A text with its placeholders filled in. An empty value takes the comma before it along (“at {store_name},
 * {store_address}.” reads “at North store.” for a store without an address); an unknown token stays as typed.
 */
export function fillPlaceholders(text: string, values: PickupValues): string {
  return text.replace(/(,[ \t]*)?\{([^{}\s]*)\}/g, (match, comma: string | undefined, key: string) => {
    if (!(key in values)) return match;
    const value = values[key as PickupPlaceholder];
    return value ? `${comma ?? ''}${value}` : '';
  });
}

/** The e-mail as the customer reads it: the subject, and the body's paragraphs (split at blank lines). */
export function renderPickupText(text: PickupEmailText, values: PickupValues) {
  return {
    subject: fillPlaceholders(text.subject, values).replace(/\s+/g, ' ').trim(),
    paragraphs: fillPlaceholders(text.body.replace(/\r\n?/g, '\n'), values)
      .split(/\n[ \t]*\n+/)
      .map((p) => p.trim())
      .filter(Boolean),
  };
}

/** SPEC §3: the stored shipping location is `{ store_id }`. */
export const ShippingLocation = z.object({ store_id: z.string() });
export type ShippingLocation = z.infer<typeof ShippingLocation>;

/** Set it to a store (a location's store_id), or null to clear it (the queue then opens on the first that ships). */
export const ShippingLocationInput = z.object({
  store_id: z.string().trim().min(1, 'Choose a store.').max(64, 'A store id is at most 64 characters.').nullable(),
});
export type ShippingLocationInput = z.infer<typeof ShippingLocationInput>;

export const FulfillmentSettings = z.object({
  /** null: none stored. */
  shipping_location: ShippingLocation.nullable(),
  pickup_emails: PickupEmails,
  /** Whether the texts are the account's own (else the defaults). */
  pickup_emails_custom: z.boolean(),
});
export type FulfillmentSettings = z.infer<typeof FulfillmentSettings>;

export const FULFILLMENT_SETTINGS_MESSAGES = {
  storeNotFound: (storeId: string) => `No location has store id ${storeId}.`,
  storeDisabled: (name: string) => `${name} is disabled: enable it on its location page before shipping from it.`,
} as const;
