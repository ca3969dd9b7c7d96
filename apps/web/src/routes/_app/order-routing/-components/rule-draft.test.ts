import { DEFAULT_ROUTING_RULE, ROUTING_MESSAGES, RoutingRules } from '@switchyard/contracts';
import { describe, expect, it } from 'vitest';
import { BIG, LIVE, NEAREST, SEATTLE } from '../../../../test/routing-fixtures.ts';
import { emptyRuleForm, formFromRule, moveRule, type RuleForm, ruleFromForm } from './rule-draft.ts';
import { describeRule } from './rule-words.ts';

const context = {
  otherRules: LIVE.rules,
  locations: new Map([
    ['loc_downtown', 'Downtown Store'],
    ['loc_warehouse', 'Warehouse'],
    ['loc_eastside', 'Eastside Store'],
    ['loc_seattle', 'Seattle Store'],
  ]),
};
const form = (patch: Partial<RuleForm>): RuleForm => ({ ...emptyRuleForm(), name: 'Oregon', ...patch });
const errorsOf = (patch: Partial<RuleForm>) => {
  const result = ruleFromForm(form(patch), context);
  return result.ok ? {} : result.errors;
};

describe('rule editor checks', () => {
  it('gives a message per field for what the save would refuse', () => {
    expect(errorsOf({ name: '  ' })).toEqual({ name: '* Required' });
    expect(errorsOf({ name: 'nearest, NEVER split' })).toEqual({
      name: 'Another rule is already called nearest, NEVER split',
    });
    expect(errorsOf({ countries: ['US', 'USA'] })).toEqual({
      countries: 'USA is not a two-letter country code (US, CA, GB…)',
    });
    expect(errorsOf({ minOrderValue: '100', maxOrderValue: '50' })).toEqual({
      maxOrderValue: 'The minimum order value cannot be above the maximum',
    });
    expect(errorsOf({ minOrderValue: '12.345', maxOrderValue: 'ten' })).toEqual({
      minOrderValue: 'Enter an amount such as 25 or 25.50',
      maxOrderValue: 'Enter an amount such as 25 or 25.50',
    });
    expect(errorsOf({ maxShipments: '' })).toEqual({ maxShipments: '* Required' });
    expect(errorsOf({ maxShipments: 0, holdBackUnits: 1.5 })).toEqual({
      maxShipments: 'Should be 1 or more',
      holdBackUnits: 'Should be a whole number',
    });
    expect(errorsOf({ maxShipments: 21 })).toEqual({ maxShipments: 'Should be 20 or less' });
    expect(errorsOf({ maxDistanceKm: 0 })).toEqual({ maxDistanceKm: 'Should be more than 0' });
    expect(errorsOf({ maxDistanceKm: 25_000 })).toEqual({ maxDistanceKm: 'Should be 20,000 km or less' });
    expect(errorsOf({ locationIds: ['loc_gone'] })).toEqual({
      locationIds: 'loc_gone is no longer one of your locations: remove it',
    });
    expect(errorsOf({ locationIds: ['loc_warehouse'], excludeLocationIds: ['loc_warehouse'] })).toEqual({
      excludeLocationIds: 'Warehouse is both preferred and excluded',
    });
    expect(errorsOf({ isDefault: true, enabled: false })).toEqual({ enabled: 'The default rule cannot be disabled' });
  });

  it('turns a good form into the rule the server takes, order values in minor units', () => {
    const result = ruleFromForm(
      form({
        name: ' Oregon ',
        countries: ['us'],
        regions: ['OR'],
        minOrderValue: '25.5',
        maxDistanceKm: '150',
        locationIds: ['loc_eastside', 'loc_downtown'],
      }),
      context,
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.rule).toMatchObject({
      name: 'Oregon',
      conditions: { countries: ['US'], regions: ['OR'], minOrderValue: 2550, maxOrderValue: null },
      strategy: {
        locationIds: ['loc_eastside', 'loc_downtown'],
        maxDistanceKm: 150,
        maxShipments: 1,
        nearestFirst: true,
      },
    });
    // A saved rule comes back to the same form.
    expect(formFromRule(result.rule)).toMatchObject({ minOrderValue: '25.50', maxDistanceKm: 150 });
    // And the set with it passes the server's own check.
    const rules = [...LIVE.rules.slice(0, -1), result.rule, DEFAULT_ROUTING_RULE];
    expect(RoutingRules.safeParse(rules).success).toBe(true);
  });

  it('gives each new rule its own id, as the server keeps it', () => {
    const ids = new Set(Array.from({ length: 50 }, () => emptyRuleForm().id));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^rule_[0-9a-f]{12}$/);
  });

  it('moves rules but never the default rule, nor anything below it', () => {
    const rules = [SEATTLE, NEAREST, BIG, DEFAULT_ROUTING_RULE];
    const ids = (list: { id: string }[]) => list.map((r) => r.id);
    expect(ids(moveRule(rules, 2, 0))).toEqual(['rule_big', 'rule_seattle', 'rule_nearest', 'default']);
    expect(ids(moveRule(rules, 0, 3))).toEqual(ids(rules));
    expect(ids(moveRule(rules, 3, 0))).toEqual(ids(rules));
    expect(RoutingRules.safeParse([DEFAULT_ROUTING_RULE, SEATTLE]).error?.issues[0]?.message).toBe(
      ROUTING_MESSAGES.oneDefault,
    );
  });

  it('words a rule for the list', () => {
    const names = { channels: new Map([['chn_shop', 'Harbor Shop']]), locations: context.locations };
    expect(describeRule(DEFAULT_ROUTING_RULE, names)).toEqual({
      when: 'Every order',
      how: 'Ship from any location, by routing priority, in at most 20 shipments.',
    });
    const busy = ruleFromForm(
      form({
        channelIds: ['chn_shop'],
        fulfillmentTypes: ['ship'],
        postalPrefixes: ['97', '98'],
        skus: ['MUG-1'],
        maxOrderValue: '99',
        maxShipments: 2,
        keepWhole: true,
        splitLines: true,
        maxDistanceKm: 300,
        holdBackUnits: 1,
      }),
      context,
    );
    if (!busy.ok) throw new Error(JSON.stringify(busy.errors));
    expect(describeRule(busy.rule, names)).toEqual({
      when: 'Orders sold on Harbor Shop, to ship, with a postal code starting 97 or 98, lines of SKU MUG-1 and worth at most $99.00',
      how: "Ship from the nearest location, in at most 2 shipments, keeping the order whole where one location can, a line's units may come from more than one location, no further than 300 km, keeping each location's last 1 unit of a SKU.",
    });
  });
});
