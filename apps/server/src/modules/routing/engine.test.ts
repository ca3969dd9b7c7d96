// The routing engine alone: each condition, each strategy, pickup, and what the trace says.
import { RoutingRule, type RoutingRuleInput } from '@switchyard/contracts';
import { describe, expect, it } from 'vitest';
import { route } from './engine.ts';
import type { EngineInput, EngineLocation, EngineOrder } from './engine.types.ts';
import { distanceKm, placePostalCode } from './geo.ts';

// Portland OR, Seattle WA, San Francisco CA, New York NY (coordinates of their city centres).
const loc = (id: string, name: string, lat: number | null, lon: number | null, over: Partial<EngineLocation> = {}) => ({
  id,
  name,
  enabled: true,
  ships: true,
  pickup: true,
  priority: 0,
  latitude: lat,
  longitude: lon,
  ...over,
});
const PDX = loc('pdx', 'Portland', 45.52, -122.68, { priority: 2 });
const SEA = loc('sea', 'Seattle', 47.61, -122.33, { priority: 1 });
const SFO = loc('sfo', 'San Francisco', 37.77, -122.42, { priority: 0 });
const NYC = loc('nyc', 'New York', 40.71, -74.0, { priority: 3 });
const ALL = [PDX, SEA, SFO, NYC];

const rule = (r: Partial<RoutingRuleInput> & { id: string }) => RoutingRule.parse({ name: r.id, ...r });
const DEFAULT = rule({
  id: 'default',
  name: 'Default',
  isDefault: true,
  strategy: { keepWhole: false, maxShipments: 20 },
});

function order(over: Partial<EngineOrder> = {}): EngineOrder {
  return {
    channelId: 'chn_shop',
    channelName: 'My Shopify',
    channelType: 'shopify',
    fulfillmentType: 'ship',
    pickupLocationId: null,
    channelLocationId: null,
    country: 'US',
    region: 'OR',
    postalCode: '97205',
    total: 10_000,
    currency: 'USD',
    lines: [{ id: 'l1', sku: 'TEE', variantId: 'v1', quantity: 2, brand: 'Acme', productType: 'Shirt' }],
    ...over,
  };
}

function run(over: Partial<EngineInput> & { stock?: Record<string, number> }) {
  const stock = over.stock ?? {};
  return route({
    order: order(),
    locations: ALL,
    rules: [DEFAULT],
    ruleSetVersion: 3,
    available: (v, l) => stock[`${v}|${l}`] ?? 0,
    ...over,
  });
}

const everywhere = (v: string, n: number) => Object.fromEntries(ALL.map((l) => [`${v}|${l.id}`, n]));

describe('geo', () => {
  it('places US ZIP codes (and ZIP+4) and Canadian postal codes offline, and says when it cannot', () => {
    expect(placePostalCode('97205', 'US').point?.latitude).toBeCloseTo(45.52, 1);
    expect(placePostalCode('97205-1234', 'United States').point).not.toBeNull();
    expect(placePostalCode('M5V 3L9', 'CA').point?.latitude).toBeCloseTo(43.65, 1);
    expect(placePostalCode('10115', 'DE')).toMatchObject({ point: null });
    expect(placePostalCode('10115', 'DE').note).toMatch(/outside the offline data set/);
    expect(placePostalCode(null, 'US').note).toMatch(/no postal code/);
  });
  it('measures great-circle distance', () => {
    // Portland to Seattle is about 233 km as the crow flies.
    expect(distanceKm(PDX as never, SEA as never)).toBeGreaterThan(220);
    expect(distanceKm(PDX as never, SEA as never)).toBeLessThan(245);
  });
});

describe('the default rule', () => {
  it('takes the first location by priority that covers the line whole, and says why', () => {
    const plan = run({ stock: { 'v1|sfo': 1, 'v1|sea': 5, 'v1|pdx': 5 } });
    expect(plan.placements).toEqual([{ lineId: 'l1', variantId: 'v1', locationId: 'sea', quantity: 2 }]);
    const line = plan.trace.lines[0];
    expect(line?.ruleName).toBe('Default');
    expect(line?.candidates.find((c) => c.locationId === 'sfo')).toMatchObject({ rejected: 'no_stock', available: 1 });
    expect(line?.candidates.find((c) => c.locationId === 'sea')).toMatchObject({ taken: 2, rejected: null, rank: 2 });
    expect(line?.candidates.find((c) => c.locationId === 'pdx')?.rejected).toBe('not_needed');
    expect(line?.explanation).toMatch(/Seattle .* first location in priority order/);
    expect(plan.trace.ruleSetVersion).toBe(3);
    expect(plan.trace.destination.located).toBe(true);
  });
  it('prefers, among equal priorities, the location the channel took the units from', () => {
    const same = ALL.map((l) => ({ ...l, priority: 0 }));
    const plan = run({ locations: same, order: order({ channelLocationId: 'pdx' }), stock: everywhere('v1', 5) });
    expect(plan.placements[0]?.locationId).toBe('pdx');
  });
  it('flags a line no location can cover (status 4), and 0 when no location can send at all', () => {
    const short = run({ stock: everywhere('v1', 1) });
    expect(short.placements).toEqual([]);
    expect(short.unplaced[0]).toMatchObject({ lineId: 'l1', status: 4 });
    expect(short.trace.lines[0]?.outcome).toBe('unplaced');
    const none = run({ locations: ALL.map((l) => ({ ...l, enabled: false })), stock: everywhere('v1', 9) });
    expect(none.unplaced[0]?.status).toBe(0);
    expect(none.trace.lines[0]?.candidates.every((c) => c.rejected === 'disabled')).toBe(true);
  });
});

describe('conditions', () => {
  const strategy = { locationIds: ['nyc'], maxShipments: 1 };
  const cases: [string, Partial<RoutingRuleInput['conditions']>, Partial<EngineOrder>, RegExp][] = [
    ['channel', { channelIds: ['chn_other'] }, {}, /came from My Shopify/],
    ['channel type', { channelTypes: ['square'] }, {}, /came from Shopify, not Square/],
    ['fulfillment type', { fulfillmentTypes: ['curbside_pickup'] }, {}, /is ship, not curbside pickup/],
    ['country', { countries: ['ca'] }, {}, /country is US, not CA/],
    ['region', { regions: ['WA'] }, {}, /region is OR, not WA/],
    ['postal prefix', { postalPrefixes: ['98'] }, {}, /97205 does not start with 98/],
    ['SKU', { skus: ['MUG'] }, {}, /SKU TEE is not among MUG/],
    ['brand', { brands: ['Other'] }, {}, /brand Acme, not Other/],
    ['product type', { productTypes: ['Mug'] }, {}, /is a Shirt, not Mug/],
    ['minimum value', { minOrderValue: 20_000 }, {}, /100.00 USD is below 200.00 USD/],
    ['maximum value', { maxOrderValue: 5_000 }, {}, /above 50.00 USD/],
  ];
  it.each(cases)('%s: a rule that does not match is passed over, with why', (_name, conditions, over, why) => {
    const plan = run({
      order: order(over),
      rules: [rule({ id: 'r1', name: 'East', conditions, strategy }), DEFAULT],
      stock: everywhere('v1', 5),
    });
    const line = plan.trace.lines[0];
    expect(line?.ruleName).toBe('Default');
    expect(line?.rules[0]).toMatchObject({ ruleId: 'r1', matched: false });
    expect(line?.rules[0]?.failed.join(' ')).toMatch(why);
    expect(line?.explanation).toMatch(/"East" above it did not/);
  });
  it('applies a rule whose conditions all hold (values case-insensitive, postal prefixes without spaces)', () => {
    const plan = run({
      rules: [
        rule({
          id: 'r1',
          name: 'Oregon tees',
          conditions: {
            channelTypes: ['shopify'],
            countries: ['US'],
            regions: ['or'],
            postalPrefixes: ['972'],
            brands: ['ACME'],
            minOrderValue: 5_000,
          },
          strategy,
        }),
        DEFAULT,
      ],
      stock: everywhere('v1', 5),
    });
    expect(plan.trace.lines[0]?.rules).toEqual([{ ruleId: 'r1', name: 'Oregon tees', matched: true, failed: [] }]);
    expect(plan.placements[0]?.locationId).toBe('nyc');
  });
  it('matches item conditions line by line: other lines go on to the rules below', () => {
    const plan = run({
      order: order({
        lines: [
          { id: 'l1', sku: 'TEE', variantId: 'v1', quantity: 1, brand: 'Acme', productType: 'Shirt' },
          { id: 'l2', sku: 'MUG', variantId: 'v2', quantity: 1, brand: 'Acme', productType: 'Mug' },
        ],
      }),
      rules: [rule({ id: 'mugs', conditions: { productTypes: ['Mug'] }, strategy: { locationIds: ['nyc'] } }), DEFAULT],
      stock: { ...everywhere('v1', 5), ...everywhere('v2', 5) },
    });
    expect(plan.placements.map((p) => [p.lineId, p.locationId])).toEqual([
      ['l1', 'sfo'],
      ['l2', 'nyc'],
    ]);
  });
  it('skips a rule that is off', () => {
    const plan = run({ rules: [rule({ id: 'off', enabled: false, strategy }), DEFAULT], stock: everywhere('v1', 5) });
    expect(plan.trace.lines[0]?.rules[0]?.failed).toEqual(['The rule is off.']);
  });
});

describe('strategies', () => {
  const two = (q1: number, q2: number) =>
    order({
      lines: [
        { id: 'l1', sku: 'A', variantId: 'v1', quantity: q1, brand: null, productType: null },
        { id: 'l2', sku: 'B', variantId: 'v2', quantity: q2, brand: null, productType: null },
      ],
    });
  it('a location group in order of preference: only its locations, in its order', () => {
    const plan = run({
      rules: [rule({ id: 'g', strategy: { locationIds: ['nyc', 'pdx'] } }), DEFAULT],
      stock: { 'v1|sfo': 9, 'v1|pdx': 9, 'v1|nyc': 1 },
    });
    expect(plan.placements[0]?.locationId).toBe('pdx');
    expect(plan.trace.lines[0]?.candidates.map((c) => c.locationId)).toEqual(['nyc', 'pdx']);
    expect(plan.trace.lines[0]?.explanation).toMatch(/first location in the rule's group/);
  });
  it('keeps the order whole when one location can (fewest shipments), even if not first', () => {
    const stock = { 'v1|sfo': 5, 'v2|sfo': 0, 'v1|pdx': 5, 'v2|pdx': 5 };
    const whole = run({
      order: two(1, 1),
      rules: [rule({ id: 'w', strategy: { keepWhole: true, maxShipments: 2 } }), DEFAULT],
      stock,
    });
    expect(new Set(whole.placements.map((p) => p.locationId))).toEqual(new Set(['pdx']));
    expect(whole.trace.shipments).toBe(1);
    expect(whole.trace.lines[0]?.explanation).toMatch(/whole order in one shipment/);
    const loose = run({
      order: two(1, 1),
      rules: [rule({ id: 'w', strategy: { keepWhole: false, maxShipments: 2 } }), DEFAULT],
      stock,
    });
    expect(loose.placements.map((p) => p.locationId)).toEqual(['sfo', 'pdx']);
    expect(loose.trace.shipments).toBe(2);
  });
  it('allows at most N shipments: a line that would need another location is flagged', () => {
    const stock = { 'v1|sfo': 5, 'v2|sea': 5 };
    const one = run({ order: two(1, 1), rules: [rule({ id: 'n1', strategy: { maxShipments: 1 } }), DEFAULT], stock });
    expect(one.placements).toHaveLength(1);
    expect(one.unplaced[0]).toMatchObject({ lineId: 'l2', status: 4 });
    expect(one.unplaced[0]?.reason).toMatch(/within 1 shipment/);
    expect(one.trace.lines[1]?.candidates.find((c) => c.locationId === 'sea')?.detail).toMatch(/at most 1 shipment/);
    const two2 = run({ order: two(1, 1), rules: [rule({ id: 'n2', strategy: { maxShipments: 2 } }), DEFAULT], stock });
    expect(two2.unplaced).toEqual([]);
  });
  it('splits a line across locations only when the rule allows it', () => {
    const stock = { 'v1|sfo': 2, 'v1|sea': 2, 'v1|pdx': 2 };
    const o = order({ lines: [{ id: 'l1', sku: 'A', variantId: 'v1', quantity: 5, brand: null, productType: null }] });
    const split = run({
      order: o,
      rules: [rule({ id: 's', strategy: { maxShipments: 3, splitLines: true } }), DEFAULT],
      stock,
    });
    expect(split.placements.map((p) => [p.locationId, p.quantity])).toEqual([
      ['sfo', 2],
      ['sea', 2],
      ['pdx', 1],
    ]);
    expect(split.trace.lines[0]?.outcome).toBe('split');
    const capped = run({
      order: o,
      rules: [rule({ id: 's', strategy: { maxShipments: 2, splitLines: true } }), DEFAULT],
      stock,
    });
    expect(capped.placements).toEqual([]);
    expect(capped.unplaced[0]?.quantity).toBe(5);
  });
  it('nearest first: by great-circle distance from the postal code; unknown code falls back to preference, and says so', () => {
    const near = rule({ id: 'near', name: 'Nearest, never split', strategy: { nearestFirst: true, maxShipments: 1 } });
    const plan = run({ rules: [near, DEFAULT], stock: everywhere('v1', 5) });
    expect(plan.placements[0]?.locationId).toBe('pdx');
    const c = plan.trace.lines[0]?.candidates;
    expect(c?.find((x) => x.locationId === 'pdx')?.distanceKm).toBeLessThan(10);
    expect(c?.find((x) => x.locationId === 'sea')?.rank).toBe(2);
    expect(plan.trace.lines[0]?.explanation).toMatch(/Portland \(.* km away\) is the nearest location/);
    const unknown = run({ order: order({ postalCode: '00000' }), rules: [near, DEFAULT], stock: everywhere('v1', 5) });
    expect(unknown.placements[0]?.locationId).toBe('sfo');
    expect(unknown.trace.destination).toMatchObject({ located: false });
    expect(unknown.trace.destination.note).toMatch(/not in the offline data set/);
  });
  it('a location without coordinates ranks after those with a distance', () => {
    const locations = [loc('nowhere', 'Nowhere', null, null), PDX, SEA];
    const plan = run({
      locations,
      rules: [rule({ id: 'near', strategy: { nearestFirst: true } }), DEFAULT],
      stock: { 'v1|nowhere': 5, 'v1|sea': 5 },
    });
    expect(plan.placements[0]?.locationId).toBe('sea');
    expect(plan.trace.lines[0]?.candidates.find((c) => c.locationId === 'nowhere')?.distanceKm).toBeNull();
  });
  it('a maximum distance rejects locations too far away (too_far), not those of unknown distance', () => {
    const plan = run({
      rules: [rule({ id: 'd', strategy: { maxDistanceKm: 500 } }), DEFAULT],
      stock: everywhere('v1', 5),
    });
    expect(plan.placements[0]?.locationId).toBe('sea');
    const c = plan.trace.lines[0]?.candidates;
    expect(c?.find((x) => x.locationId === 'sfo')).toMatchObject({ rejected: 'too_far' });
    expect(c?.find((x) => x.locationId === 'sfo')?.detail).toMatch(/over the rule's limit of 500 km/);
    expect(c?.find((x) => x.locationId === 'nyc')?.rejected).toBe('too_far');
  });
  it('excludes locations, and skips disabled ones and ones that do not ship', () => {
    const locations = [{ ...SFO, ships: false }, { ...SEA, enabled: false }, PDX, NYC];
    const plan = run({
      locations,
      rules: [rule({ id: 'x', strategy: { excludeLocationIds: ['pdx'] } }), DEFAULT],
      stock: everywhere('v1', 5),
    });
    expect(plan.placements[0]?.locationId).toBe('nyc');
    const reasons = Object.fromEntries(plan.trace.lines[0]?.candidates.map((c) => [c.locationId, c.rejected]) ?? []);
    expect(reasons).toEqual({ sfo: 'does_not_ship', sea: 'disabled', pdx: 'excluded', nyc: null });
  });
  it("holds back a location's last units", () => {
    const plan = run({
      rules: [rule({ id: 'h', strategy: { holdBackUnits: 2 } }), DEFAULT],
      stock: { 'v1|sfo': 3, 'v1|sea': 4 },
    });
    expect(plan.placements[0]?.locationId).toBe('sea');
    expect(plan.trace.lines[0]?.candidates.find((c) => c.locationId === 'sfo')).toMatchObject({
      rejected: 'hold_back',
    });
  });
  it('two lines of one SKU share what a location has', () => {
    const o = order({
      lines: [
        { id: 'l1', sku: 'A', variantId: 'v1', quantity: 2, brand: null, productType: null },
        { id: 'l2', sku: 'A', variantId: 'v1', quantity: 2, brand: null, productType: null },
      ],
    });
    const plan = run({ order: o, stock: { 'v1|sfo': 3, 'v1|sea': 3 } });
    expect(plan.placements.map((p) => p.locationId)).toEqual(['sfo', 'sea']);
  });
  it('leaves out the stores that said no (a re-route)', () => {
    const plan = run({ without: ['sfo'], stock: everywhere('v1', 5) });
    expect(plan.placements[0]?.locationId).toBe('sea');
    expect(plan.trace.withoutLocationIds).toEqual(['sfo']);
    expect(plan.trace.lines[0]?.candidates[0]).toMatchObject({ locationId: 'sfo', rejected: 'excluded' });
    expect(plan.trace.summary).toMatch(/1 location left out after saying no/);
  });
});

describe('pickup and curbside', () => {
  it('go to the chosen store whole, never split, whatever the rules say', () => {
    const rules = [rule({ id: 'g', strategy: { locationIds: ['nyc'], splitLines: true, maxShipments: 5 } }), DEFAULT];
    const ok = run({
      order: order({ fulfillmentType: 'pickup', pickupLocationId: 'pdx' }),
      rules,
      stock: everywhere('v1', 5),
    });
    expect(ok.placements).toEqual([{ lineId: 'l1', variantId: 'v1', locationId: 'pdx', quantity: 2 }]);
    expect(ok.trace.lines[0]?.explanation).toMatch(/store the customer chose/);
    const short = run({
      order: order({ fulfillmentType: 'curbside_pickup', pickupLocationId: 'pdx' }),
      rules,
      stock: { 'v1|pdx': 1, 'v1|sea': 9 },
    });
    expect(short.placements).toEqual([]);
    expect(short.unplaced[0]).toMatchObject({ status: 4 });
    expect(short.trace.lines[0]?.explanation).toMatch(/curbside pickup order is served by the customer's store only/);
  });
  it('flags a pickup whose store is not ours (0) or said no', () => {
    const none = run({
      order: order({ fulfillmentType: 'pickup', pickupLocationId: null }),
      stock: everywhere('v1', 5),
    });
    expect(none.unplaced[0]?.status).toBe(0);
    const refused = run({
      order: order({ fulfillmentType: 'pickup', pickupLocationId: 'pdx' }),
      without: ['pdx'],
      stock: everywhere('v1', 5),
    });
    expect(refused.unplaced[0]?.reason).toMatch(/cannot move to another store/);
  });
});

describe('speed', () => {
  it('decides 5 lines × 50 locations × 10 rules with its trace', () => {
    const locations = Array.from({ length: 50 }, (_, i) =>
      loc(`l${i}`, `Store ${i}`, 30 + i / 3, -120 + i, { priority: i % 7 }),
    );
    const rules = [
      ...Array.from({ length: 9 }, (_, i) =>
        rule({ id: `r${i}`, conditions: { countries: ['CA'], skus: [`X${i}`] }, strategy: { nearestFirst: true } }),
      ),
      rule({ id: 'default', isDefault: true, strategy: { nearestFirst: true, keepWhole: true, maxShipments: 3 } }),
    ];
    const lines = Array.from({ length: 5 }, (_, i) => ({
      id: `l${i}`,
      sku: `S${i}`,
      variantId: `v${i}`,
      quantity: 2,
      brand: null,
      productType: null,
    }));
    const plan = route({
      order: order({ lines }),
      locations,
      rules,
      ruleSetVersion: 1,
      available: (v, l) => (v.length + l.length) % 4,
    });
    expect(plan.trace.lines).toHaveLength(5);
    expect(plan.trace.lines[0]?.candidates).toHaveLength(50);
    expect(plan.trace.lines[0]?.rules).toHaveLength(10);
  });
});

describe('without explanations', () => {
  it('makes the same plan, leaving candidates and explanations out (replays)', () => {
    const input = {
      stock: everywhere('v1', 5),
      rules: [rule({ id: 'near', strategy: { nearestFirst: true } }), DEFAULT],
    };
    const full = run(input);
    const bare = run({ ...input, explain: false });
    expect(bare.placements).toEqual(full.placements);
    expect(bare.trace.lines[0]?.candidates).toEqual([]);
  });
});
