import {
  DEFAULT_ROUTING_RULE,
  type DecisionTrace,
  type RoutingLocation,
  RoutingRule,
  type RoutingRuleInput,
  type RoutingRuleSet,
  type TraceLine,
} from '@switchyard/contracts';

export const T0 = new Date('2026-11-20T10:00:00.000Z');

const location = (
  id: string,
  name: string,
  latitude: number,
  longitude: number,
  extra: Partial<RoutingLocation> = {},
) =>
  ({
    id,
    name,
    storeId: id.toUpperCase(),
    enabled: true,
    ships: true,
    pickup: true,
    priority: 0,
    latitude,
    longitude,
    ...extra,
  }) satisfies RoutingLocation;

export const LOCATIONS: RoutingLocation[] = [
  location('loc_downtown', 'Downtown Store', 45.52, -122.68),
  location('loc_warehouse', 'Warehouse', 45.58, -122.72, { pickup: false, priority: 1 }),
  location('loc_eastside', 'Eastside Store', 45.51, -122.63),
  location('loc_seattle', 'Seattle Store', 47.61, -122.34, { enabled: false }),
];

export const rule = (input: RoutingRuleInput) => RoutingRule.parse(input);

export const NEAREST = rule({
  id: 'rule_nearest',
  name: 'Nearest, never split',
  conditions: { countries: ['US'] },
  strategy: { nearestFirst: true, maxShipments: 1, keepWhole: true },
});
export const SEATTLE = rule({
  id: 'rule_seattle',
  name: 'Seattle only',
  conditions: { regions: ['WA'] },
  strategy: { locationIds: ['loc_seattle'], maxShipments: 1 },
});
export const BIG = rule({
  id: 'rule_big',
  name: 'Big orders from the warehouse',
  conditions: { minOrderValue: 50000 },
  strategy: { locationIds: ['loc_warehouse', 'loc_downtown'], maxShipments: 2, excludeLocationIds: ['loc_eastside'] },
});

export function ruleSet(
  version: number,
  rules: RoutingRule[],
  overrides: Partial<RoutingRuleSet> = {},
): RoutingRuleSet {
  return {
    version,
    rules,
    note: version === 0 ? 'Built-in default' : null,
    createdBy: version === 0 ? null : 'Ada Lovelace',
    createdAt: version === 0 ? null : T0,
    ...overrides,
  };
}

export const LIVE = ruleSet(2, [SEATTLE, NEAREST, BIG, DEFAULT_ROUTING_RULE]);

/** One line placed at Downtown by "Nearest, never split", after "Seattle only" did not apply. */
export const TRACE_LINE: TraceLine = {
  lineId: 'line_1',
  sku: 'MUG-1',
  quantity: 2,
  ruleId: 'rule_nearest',
  ruleName: 'Nearest, never split',
  rules: [
    { ruleId: 'rule_seattle', name: 'Seattle only', matched: false, failed: ['The destination region is OR, not WA.'] },
    { ruleId: 'rule_nearest', name: 'Nearest, never split', matched: true, failed: [] },
  ],
  candidates: [
    {
      locationId: 'loc_warehouse',
      name: 'Warehouse',
      available: 0,
      distanceKm: 7.4,
      rank: 2,
      taken: 0,
      rejected: 'no_stock',
      detail: 'Has 0 available, 2 needed.',
    },
    {
      locationId: 'loc_downtown',
      name: 'Downtown Store',
      available: 12,
      distanceKm: 1.2,
      rank: 1,
      taken: 2,
      rejected: null,
      detail: 'The nearest with 2 available: chosen.',
    },
    {
      locationId: 'loc_seattle',
      name: 'Seattle Store',
      available: 30,
      distanceKm: 233.8,
      rank: null,
      taken: 0,
      rejected: 'disabled',
      detail: 'Seattle Store is disabled.',
    },
  ],
  chosen: [{ locationId: 'loc_downtown', name: 'Downtown Store', quantity: 2 }],
  unplaced: 0,
  outcome: 'allocated',
  explanation: 'Downtown Store is the nearest location with all 2 units (1.2 km away).',
};

export const TRACE: DecisionTrace = {
  ruleSetVersion: 2,
  fulfillmentType: 'ship',
  destination: {
    country: 'US',
    region: 'OR',
    postalCode: '97205',
    latitude: 45.52,
    longitude: -122.69,
    located: true,
    note: 'Postal code 97205 placed at Portland, OR.',
  },
  lines: [TRACE_LINE],
  shipments: 1,
  summary: 'One shipment from Downtown Store by rule Nearest, never split.',
  withoutLocationIds: [],
};
