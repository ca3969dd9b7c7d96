import {
  type ChannelType,
  type FulfillmentType,
  ROUTING_LIMITS,
  RoutingRule,
  type RoutingRule as RoutingRuleValue,
} from '@switchyard/contracts';
import { fromMinorUnits, toMinorUnits } from '../../../subscription/-components/money.ts';

/**
 * The rule editor's form: a RoutingRule with its conditions and strategy flattened into fields, numbers as the
 * inputs hold them (a number, or '' when emptied) and order values in major units. `ruleFromForm` checks it with
 * the contract's RoutingRule schema plus what the schema cannot see (the other rules, the locations).
 */
export interface RuleForm {
  id: string;
  name: string;
  enabled: boolean;
  isDefault: boolean;
  channelIds: string[];
  channelTypes: ChannelType[];
  fulfillmentTypes: FulfillmentType[];
  countries: string[];
  regions: string[];
  postalPrefixes: string[];
  skus: string[];
  brands: string[];
  productTypes: string[];
  minOrderValue: string;
  maxOrderValue: string;
  locationIds: string[];
  keepWhole: boolean;
  maxShipments: number | string;
  splitLines: boolean;
  nearestFirst: boolean;
  maxDistanceKm: number | string;
  excludeLocationIds: string[];
  holdBackUnits: number | string;
}

export type RuleField = keyof RuleForm;
export type RuleErrors = Partial<Record<RuleField, string>>;

/** Order values are typed and shown in this currency (the sandbox shops and most merchants sell in dollars). */
export const ROUTING_CURRENCY = 'USD';

/** A rule id made here for a new rule; the server keeps it, so a draft can be dry-run before it is saved. */
export function newRuleId(): string {
  // getRandomValues, not randomUUID: the latter exists only on https (or localhost) pages.
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return `rule_${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export function formFromRule(rule: RoutingRuleValue): RuleForm {
  const { conditions: c, strategy: s } = rule;
  return {
    id: rule.id,
    name: rule.name,
    enabled: rule.enabled,
    isDefault: rule.isDefault,
    channelIds: [...c.channelIds],
    channelTypes: [...c.channelTypes],
    fulfillmentTypes: [...c.fulfillmentTypes],
    countries: [...c.countries],
    regions: [...c.regions],
    postalPrefixes: [...c.postalPrefixes],
    skus: [...c.skus],
    brands: [...c.brands],
    productTypes: [...c.productTypes],
    minOrderValue: c.minOrderValue === null ? '' : fromMinorUnits(c.minOrderValue, ROUTING_CURRENCY),
    maxOrderValue: c.maxOrderValue === null ? '' : fromMinorUnits(c.maxOrderValue, ROUTING_CURRENCY),
    locationIds: [...s.locationIds],
    keepWhole: s.keepWhole,
    maxShipments: s.maxShipments,
    splitLines: s.splitLines,
    nearestFirst: s.nearestFirst,
    maxDistanceKm: s.maxDistanceKm ?? '',
    excludeLocationIds: [...s.excludeLocationIds],
    holdBackUnits: s.holdBackUnits,
  };
}

/** A new rule as the editor opens it: no conditions yet, one shipment from the nearest location. */
export function emptyRuleForm(): RuleForm {
  const rule = RoutingRule.parse({
    id: newRuleId(),
    name: 'New rule',
    strategy: { keepWhole: true, maxShipments: 1, nearestFirst: true },
  });
  return { ...formFromRule(rule), name: '' };
}

const isBlank = (value: number | string) => typeof value === 'string' && value.trim() === '';

/** A whole number typed into a field, or a message. */
function wholeNumber(value: number | string, min: number, max: number): number | string {
  const n = typeof value === 'number' ? value : Number(value.trim());
  if (!Number.isFinite(n)) return 'Enter a number';
  if (!Number.isInteger(n)) return 'Should be a whole number';
  if (n < min) return `Should be ${min} or more`;
  if (n > max) return `Should be ${max.toLocaleString('en-US')} or less`;
  return n;
}

export interface RuleCheckContext {
  /** The other rules of the set: a name is used once. */
  otherRules: readonly { id: string; name: string }[];
  /** The locations the rule may name (id → name). */
  locations: ReadonlyMap<string, string>;
}

export type RuleCheck = { ok: true; rule: RoutingRuleValue } | { ok: false; errors: RuleErrors };

/** Which form field a path of the contract's RoutingRule schema is shown at. */
function fieldOf(path: readonly PropertyKey[]): RuleField | undefined {
  const [head, field] = path;
  if (head === 'name' || head === 'enabled') return head;
  if ((head === 'conditions' || head === 'strategy') && typeof field === 'string') return field as RuleField;
  return undefined;
}

/**
 * The rule the form describes, or a message per field. The same schema as the server's (RoutingRule), so what
 * passes here is what the save accepts; plus: a name used once, two-letter countries, known locations, and no
 * location both preferred and excluded.
 */
export function ruleFromForm(form: RuleForm, context: RuleCheckContext): RuleCheck {
  const errors: RuleErrors = {};
  const put = (field: RuleField, message: string) => {
    if (!errors[field]) errors[field] = message;
  };

  const money = (field: 'minOrderValue' | 'maxOrderValue'): number | null => {
    const text = form[field].trim();
    if (text === '') return null;
    const minor = toMinorUnits(text, ROUTING_CURRENCY);
    if (minor === undefined) put(field, 'Enter an amount such as 25 or 25.50');
    return minor ?? null;
  };
  const number = (field: 'maxShipments' | 'holdBackUnits', min: number, max: number): number => {
    if (isBlank(form[field])) {
      put(field, '* Required');
      return min;
    }
    const n = wholeNumber(form[field], min, max);
    if (typeof n === 'string') put(field, n);
    return typeof n === 'number' ? n : min;
  };

  let maxDistanceKm: number | null = null;
  if (!isBlank(form.maxDistanceKm)) {
    const n = Number(form.maxDistanceKm);
    if (!Number.isFinite(n)) put('maxDistanceKm', 'Enter a number of kilometres');
    else if (n <= 0) put('maxDistanceKm', 'Should be more than 0');
    else if (n > ROUTING_LIMITS.maxDistanceKm)
      put('maxDistanceKm', `Should be ${ROUTING_LIMITS.maxDistanceKm.toLocaleString('en-US')} km or less`);
    else maxDistanceKm = n;
  }

  const name = form.name.trim();
  if (name && context.otherRules.some((r) => r.id !== form.id && r.name.trim().toLowerCase() === name.toLowerCase()))
    put('name', `Another rule is already called ${name}`);
  const badCountry = form.countries.find((c) => !/^[A-Za-z]{2}$/.test(c.trim()));
  if (badCountry !== undefined) put('countries', `${badCountry} is not a two-letter country code (US, CA, GB…)`);
  for (const field of ['locationIds', 'excludeLocationIds'] as const) {
    const unknown = form[field].find((id) => !context.locations.has(id));
    if (unknown) put(field, `${unknown} is no longer one of your locations: remove it`);
  }
  const both = form.locationIds.find((id) => form.excludeLocationIds.includes(id));
  if (both) put('excludeLocationIds', `${context.locations.get(both) ?? both} is both preferred and excluded`);
  if (form.isDefault && !form.enabled) put('enabled', 'The default rule cannot be disabled');

  const candidate = {
    id: form.id,
    name,
    enabled: form.enabled,
    isDefault: form.isDefault,
    conditions: {
      channelIds: form.channelIds,
      channelTypes: form.channelTypes,
      fulfillmentTypes: form.fulfillmentTypes,
      countries: form.countries.map((c) => c.trim()),
      regions: form.regions,
      postalPrefixes: form.postalPrefixes,
      skus: form.skus,
      brands: form.brands,
      productTypes: form.productTypes,
      minOrderValue: money('minOrderValue'),
      maxOrderValue: money('maxOrderValue'),
    },
    strategy: {
      locationIds: form.locationIds,
      keepWhole: form.keepWhole,
      maxShipments: number('maxShipments', 1, ROUTING_LIMITS.maxShipments),
      splitLines: form.splitLines,
      nearestFirst: form.nearestFirst,
      maxDistanceKm,
      excludeLocationIds: form.excludeLocationIds,
      holdBackUnits: number('holdBackUnits', 0, ROUTING_LIMITS.holdBack),
    },
  };
  const parsed = RoutingRule.safeParse(candidate);
  if (!parsed.success)
    for (const issue of parsed.error.issues) {
      const field = fieldOf(issue.path);
      if (field) put(field, issue.message);
    }
  if (Object.keys(errors).length > 0 || !parsed.success) {
    // A schema issue without a field of its own (none are expected) still stops the save, named at the name.
    if (Object.keys(errors).length === 0) put('name', parsed.error?.issues[0]?.message ?? 'Check this rule');
    return { ok: false, errors };
  }
  return { ok: true, rule: parsed.data };
}

/** Moves the rule at `from` to `to`, keeping the default rule last (it cannot move, nor be passed). */
export function moveRule<T extends { isDefault: boolean }>(rules: readonly T[], from: number, to: number): T[] {
  const last = rules.length - 1;
  const ceiling = rules[last]?.isDefault ? last - 1 : last;
  if (from < 0 || from > ceiling || to < 0 || to > ceiling || from === to) return [...rules];
  const next = [...rules];
  const [moved] = next.splice(from, 1);
  next.splice(to, 0, moved as T);
  return next;
}

/** Whether two rule lists say the same (order, fields and all): nothing to save. */
export function sameRules(a: readonly RoutingRuleValue[], b: readonly RoutingRuleValue[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
