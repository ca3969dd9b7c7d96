import {
  CHANNEL_LABELS,
  type FulfillmentType,
  type RoutingConditions,
  type RoutingRule,
  type RoutingStrategy,
} from '@switchyard/contracts';
import { formatMoney } from '../../../subscription/-components/money.ts';
import { ROUTING_CURRENCY } from './rule-draft.ts';

/** Names for ids: a rule names channels and locations by id. */
export interface RuleNames {
  channels: ReadonlyMap<string, string>;
  locations: ReadonlyMap<string, string>;
}

/** "A, B or C" */
export function orList(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/** "A, B and C" */
export function andList(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

const FULFILLMENT_PHRASES: Record<FulfillmentType, string> = {
  ship: 'to ship',
  pickup: 'for pickup',
  curbside_pickup: 'for curbside pickup',
};

const named = (ids: readonly string[], names: ReadonlyMap<string, string>) => ids.map((id) => names.get(id) ?? id);
const money = (minor: number) => formatMoney(minor, ROUTING_CURRENCY);

/** Each set condition as a phrase; none: the rule applies to every order. */
export function conditionPhrases(c: RoutingConditions, names: RuleNames): string[] {
  const out: string[] = [];
  if (c.channelIds.length > 0) out.push(`sold on ${orList(named(c.channelIds, names.channels))}`);
  if (c.channelTypes.length > 0) out.push(`from ${orList(c.channelTypes.map((t) => CHANNEL_LABELS[t]))}`);
  if (c.fulfillmentTypes.length > 0) out.push(orList(c.fulfillmentTypes.map((t) => FULFILLMENT_PHRASES[t])));
  if (c.countries.length > 0) out.push(`going to ${orList(c.countries)}`);
  if (c.regions.length > 0) out.push(`in region ${orList(c.regions)}`);
  if (c.postalPrefixes.length > 0) out.push(`with a postal code starting ${orList(c.postalPrefixes)}`);
  if (c.skus.length > 0) out.push(`lines of SKU ${orList(c.skus)}`);
  if (c.brands.length > 0) out.push(`lines of brand ${orList(c.brands)}`);
  if (c.productTypes.length > 0) out.push(`lines of product type ${orList(c.productTypes)}`);
  if (c.minOrderValue !== null && c.maxOrderValue !== null)
    out.push(`worth ${money(c.minOrderValue)} to ${money(c.maxOrderValue)}`);
  else if (c.minOrderValue !== null) out.push(`worth at least ${money(c.minOrderValue)}`);
  else if (c.maxOrderValue !== null) out.push(`worth at most ${money(c.maxOrderValue)}`);
  return out;
}

/** "Orders sold on Main Shopify, going to US" or "Every order". */
export function describeConditions(c: RoutingConditions, names: RuleNames): string {
  const phrases = conditionPhrases(c, names);
  if (phrases.length === 0) return 'Every order';
  return `Orders ${andList(phrases)}`;
}

/** The strategy in one or two sentences. */
export function describeStrategy(s: RoutingStrategy, names: RuleNames): string {
  const parts: string[] = [];
  const group = named(s.locationIds, names.locations);
  if (s.nearestFirst)
    parts.push(group.length > 0 ? `Ship from the nearest of ${group.join(', ')}` : 'Ship from the nearest location');
  else
    parts.push(group.length > 0 ? `Ship from ${group.join(', then ')}` : 'Ship from any location, by routing priority');
  if (s.maxShipments === 1) parts.push('never split');
  else parts.push(`in at most ${s.maxShipments} shipments`);
  if (s.keepWhole && s.maxShipments > 1) parts.push('keeping the order whole where one location can');
  if (s.splitLines) parts.push("a line's units may come from more than one location");
  if (s.maxDistanceKm !== null) parts.push(`no further than ${s.maxDistanceKm.toLocaleString('en-US')} km`);
  if (s.excludeLocationIds.length > 0) parts.push(`never from ${orList(named(s.excludeLocationIds, names.locations))}`);
  if (s.holdBackUnits > 0)
    parts.push(`keeping each location's last ${s.holdBackUnits} unit${s.holdBackUnits === 1 ? '' : 's'} of a SKU`);
  return `${parts.join(', ')}.`;
}

export function describeRule(rule: RoutingRule, names: RuleNames) {
  return { when: describeConditions(rule.conditions, names), how: describeStrategy(rule.strategy, names) };
}
