// Whether a rule applies to an order's line, and if not, why, one plain sentence per condition that failed.
import { CHANNEL_LABELS, FULFILLMENT_TYPE_LABELS, type RoutingRule } from '@switchyard/contracts';
import type { EngineLine, EngineOrder } from './engine.types.ts';

const money = (minor: number, currency: string) => `${(minor / 100).toFixed(2)} ${currency}`;
const list = (values: readonly string[]) =>
  values.length <= 4 ? values.join(', ') : `${values.slice(0, 4).join(', ')} and ${values.length - 4} more`;
const lower = (s: string | null | undefined) => (s ?? '').trim().toLowerCase();
const compactPostal = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, '').toUpperCase();

/** Failed order-level conditions (channel, fulfillment type, destination, value): the same for every line. */
export function orderConditionFailures(rule: RoutingRule, order: EngineOrder): string[] {
  const c = rule.conditions;
  const failed: string[] = [];
  if (c.channelIds.length && !(order.channelId && c.channelIds.includes(order.channelId)))
    failed.push(`The order came from ${order.channelName ?? 'no channel'}, not one of this rule's channels.`);
  if (c.channelTypes.length && !(order.channelType && c.channelTypes.includes(order.channelType)))
    failed.push(
      `The order came from ${order.channelType ? CHANNEL_LABELS[order.channelType] : 'no channel'}, not ${list(c.channelTypes.map((t) => CHANNEL_LABELS[t]))}.`,
    );
  if (c.fulfillmentTypes.length && !c.fulfillmentTypes.includes(order.fulfillmentType))
    failed.push(
      `The order is ${FULFILLMENT_TYPE_LABELS[order.fulfillmentType].toLowerCase()}, not ${list(c.fulfillmentTypes.map((t) => FULFILLMENT_TYPE_LABELS[t].toLowerCase()))}.`,
    );
  if (c.countries.length && !(order.country && c.countries.includes(order.country)))
    failed.push(
      order.country
        ? `The destination country is ${order.country}, not ${list(c.countries)}.`
        : 'The destination has no country.',
    );
  if (c.regions.length && !c.regions.some((r) => lower(r) === lower(order.region)))
    failed.push(
      order.region
        ? `The destination region is ${order.region}, not ${list(c.regions)}.`
        : 'The destination has no region.',
    );
  if (c.postalPrefixes.length) {
    const code = compactPostal(order.postalCode);
    if (!code || !c.postalPrefixes.some((p) => code.startsWith(compactPostal(p))))
      failed.push(
        code
          ? `Postal code ${order.postalCode} does not start with ${list(c.postalPrefixes)}.`
          : 'The destination has no postal code.',
      );
  }
  if (c.minOrderValue !== null && order.total < c.minOrderValue)
    failed.push(
      `The order's value ${money(order.total, order.currency)} is below ${money(c.minOrderValue, order.currency)}.`,
    );
  if (c.maxOrderValue !== null && order.total > c.maxOrderValue)
    failed.push(
      `The order's value ${money(order.total, order.currency)} is above ${money(c.maxOrderValue, order.currency)}.`,
    );
  return failed;
}

/** Failed item conditions (SKU, brand, product type) for one line. */
export function lineConditionFailures(rule: RoutingRule, line: EngineLine): string[] {
  const c = rule.conditions;
  const failed: string[] = [];
  const label = line.sku ?? line.title ?? 'The line';
  if (c.skus.length && !c.skus.some((s) => lower(s) === lower(line.sku)))
    failed.push(`SKU ${label} is not among ${list(c.skus)}.`);
  if (c.brands.length && !c.brands.some((b) => lower(b) === lower(line.brand)))
    failed.push(line.brand ? `${label} is of brand ${line.brand}, not ${list(c.brands)}.` : `${label} has no brand.`);
  if (c.productTypes.length && !c.productTypes.some((p) => lower(p) === lower(line.productType)))
    failed.push(
      line.productType
        ? `${label} is a ${line.productType}, not ${list(c.productTypes)}.`
        : `${label} has no product type.`,
    );
  return failed;
}
