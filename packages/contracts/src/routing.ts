import { z } from 'zod';
import { ChannelType } from './channels.ts';
import { FulfillmentType, isFlaggingAllocation } from './orders.ts';
import { wholeNumber, wholeNumberFilter } from './whole-number.ts';

/**
 * Order routing (issue 14): the merchant's ordered rules decide which location fulfils each line; every
 * decision keeps a trace ("Why this store"); rules are versioned; dry runs and replays try a draft first.
 *
 * Calls (tRPC; REST where a path is given; both over the same service):
 * - `routing.rules()` → RoutingRuleSet (the live version; version 0 = the built-in default, never saved)
 * - `routing.version({ version })` → RoutingRuleSet
 * - `routing.versions({ limit?, offset? })` → RoutingVersionList (newest first: who, when, note)
 * - `routing.save(SaveRoutingRulesInput)` → RoutingRuleSet (a new version; `baseVersion` must be the live one)
 * - `routing.reorder({ baseVersion, order: ruleIds[] })` → RoutingRuleSet (a new version, rules reordered;
 *   the default rule stays last)
 * - `routing.dryRun(DryRunInput)` → DryRunResult (nothing reserved)
 * - `routing.replay(ReplayInput)` → ReplaySummary
 * - `routing.decisions({ orderId })` → OrderRoutingDecisions (every decision of the order, newest first)
 * - `routing.reject(RejectAllocationInput)` → AllocationUpdateResult (status 5 or 4; the line routed again)
 * - `routing.reassign(ReassignAllocationInput)` → AllocationUpdateResult
 * - `routing.locations()` → RoutingLocation[] (what the rule editor offers: id, name, coordinates, flags)
 * - frontend `POST shipping/listOrderItemAllocations` (ListAllocationsInput) → AllocationList
 * - frontend `POST shipping/getOrderItemAllocation` ({ id }) → AllocationRow
 * - frontend `POST shipping/updateLocationOrderItem` (UpdateLocationOrderItemInput) → AllocationUpdateResult
 */

// ---------------------------------------------------------------------------------------- limits

export const ROUTING_LIMITS = {
  rules: 50,
  maxShipments: 20,
  listItems: 500,
  maxDistanceKm: 20_000,
  holdBack: 1000,
  replayOrders: 10_000,
  dryRunLines: 100,
} as const;

/** DESIGN §3 / SPEC §4: an order needs routing again when any of its allocations is at 0, 4 or 5. */
export const needsRouting = (allocations: readonly { status: number }[]) =>
  allocations.some((a) => isFlaggingAllocation(a.status));

// ---------------------------------------------------------------------------------------- rules

const idList = (what: string) =>
  z
    .array(z.string().trim().min(1).max(64))
    .max(ROUTING_LIMITS.listItems, `At most ${ROUTING_LIMITS.listItems} ${what}`)
    .default([]);
const textList = (what: string, max = 100) =>
  z
    .array(z.string().trim().min(1, `A ${what} cannot be empty`).max(max))
    .max(ROUTING_LIMITS.listItems, `At most ${ROUTING_LIMITS.listItems} ${what}s`)
    .default([]);

/**
 * When a rule applies. Every condition that is set must hold (an empty list or null is not set); within a list,
 * any value matches. Order conditions (channel, fulfillment type, destination, value) are the order's; item
 * conditions (SKU, brand, product type) are each line's: a rule applies to the lines that match it, and the
 * other lines go on to the rules below.
 */
export const RoutingConditions = z
  .object({
    channelIds: idList('channels'),
    channelTypes: z.array(ChannelType).max(3).default([]),
    fulfillmentTypes: z.array(FulfillmentType).max(3).default([]),
    /** ISO 3166-1 alpha-2 codes (US, CA…), upper case. */
    countries: textList('country', 2).transform((l) => l.map((c) => c.toUpperCase())),
    /** Province or state codes (OR, ON…), matched case-insensitively. */
    regions: textList('region', 100),
    /** The destination's postal code starts with one of these (spaces ignored, case-insensitive). */
    postalPrefixes: textList('postal prefix', 20),
    skus: textList('SKU', 200),
    brands: textList('brand', 200),
    productTypes: textList('product type', 200),
    /** The order's total in minor units: at least / at most (null: not set). */
    minOrderValue: z.number().int().min(0).nullable().default(null),
    maxOrderValue: z.number().int().min(0).nullable().default(null),
  })
  .refine((c) => c.minOrderValue === null || c.maxOrderValue === null || c.minOrderValue <= c.maxOrderValue, {
    message: 'The minimum order value cannot be above the maximum',
    path: ['maxOrderValue'],
  });
export type RoutingConditions = z.output<typeof RoutingConditions>;
export type RoutingConditionsInput = z.input<typeof RoutingConditions>;

/** How a rule picks locations for the lines it applies to. */
export const RoutingStrategy = z.object({
  /** A location group in order of preference; empty: every location, by its routing priority. */
  locationIds: idList('locations'),
  /** Prefer one location that can cover every line (fewest shipments). */
  keepWhole: z.boolean().default(true),
  /** At most this many locations (shipments) for the lines of this rule; 1 = never split. */
  maxShipments: z
    .number()
    .int()
    .min(1, 'At least 1 shipment')
    .max(ROUTING_LIMITS.maxShipments, `At most ${ROUTING_LIMITS.maxShipments} shipments`)
    .default(1),
  /** A line's units may come from more than one location (each counts toward maxShipments). */
  splitLines: z.boolean().default(false),
  /** Order candidates by great-circle distance to the destination (unknown distance: preference order). */
  nearestFirst: z.boolean().default(false),
  /** Locations further than this from the destination are not used (null: no limit). */
  maxDistanceKm: z
    .number()
    .positive('Should be more than 0')
    .max(ROUTING_LIMITS.maxDistanceKm)
    .nullable()
    .default(null),
  excludeLocationIds: idList('excluded locations'),
  /** Keep a location's last N units of a SKU for walk-in customers (0: off). */
  holdBackUnits: z.number().int().min(0).max(ROUTING_LIMITS.holdBack).default(0),
});
export type RoutingStrategy = z.output<typeof RoutingStrategy>;
export type RoutingStrategyInput = z.input<typeof RoutingStrategy>;

export const RoutingRule = z.object({
  /** Stable across versions (the editor keeps it); a new rule may send none and gets one. */
  id: z.string().trim().min(1).max(64),
  name: z.string().trim().min(1, '* Required').max(100, 'Should be at most 100 characters'),
  enabled: z.boolean().default(true),
  /** The default rule: last, no conditions, always present, cannot be disabled or deleted. */
  isDefault: z.boolean().default(false),
  conditions: RoutingConditions.default(RoutingConditions.parse({})),
  strategy: RoutingStrategy.default(RoutingStrategy.parse({})),
});
export type RoutingRule = z.output<typeof RoutingRule>;
export type RoutingRuleInput = z.input<typeof RoutingRule>;

export const ROUTING_MESSAGES = {
  oneDefault: 'A rule set has exactly one default rule, and it is the last rule',
  defaultConditions: 'The default rule applies to every order: it has no conditions',
  defaultEnabled: 'The default rule cannot be disabled',
  duplicateRule: 'Two rules have the same id',
  staleVersion: (live: number) =>
    `The rules were changed meanwhile (now version ${live}): reload them and make your change again`,
  versionNotFound: 'Rule set version not found',
  unknownLocation: (id: string) => `Location ${id} is not one of your locations`,
  unknownChannel: (id: string) => `Channel ${id} is not one of your channels`,
  reorderMismatch: 'The new order must name every rule once, with the default rule last',
  allocationNotFound: 'Allocation not found',
  notAllocated: 'Only an allocated line (status 1) can be rejected or reported short',
  notMovable: 'Only a line that is allocated or waiting for routing (status 0, 1, 4 or 5) can be reassigned',
  sameLocation: 'The line is already at that location',
  movedMeanwhile: 'The line is no longer at that store: it was routed again meanwhile',
  notEnoughStock: (name: string, available: number, needed: number) =>
    `${name} has ${available} available, ${needed} needed`,
  locationDisabled: (name: string) => `${name} is disabled`,
  orderClosed: 'The order is cancelled or complete: its lines are not routed',
  reasonRequired: 'Say why the store cannot fulfil the line',
  orderNotFound: 'Order not found',
  unknownSku: (sku: string) => `SKU ${sku} is not in the catalog`,
} as const;

/** Built-in default rule: issue 13's default (every location by priority, each line whole, lines may split). */
export const DEFAULT_ROUTING_RULE: RoutingRule = RoutingRule.parse({
  id: 'default',
  name: 'Default',
  isDefault: true,
  strategy: { keepWhole: false, maxShipments: ROUTING_LIMITS.maxShipments },
});

/** The rules of a set: ordered, ids unique, exactly one default rule and it is last. */
export const RoutingRules = z
  .array(RoutingRule)
  .min(1, ROUTING_MESSAGES.oneDefault)
  .max(ROUTING_LIMITS.rules, `At most ${ROUTING_LIMITS.rules} rules`)
  .superRefine((rules, ctx) => {
    const defaults = rules.filter((r) => r.isDefault);
    if (defaults.length !== 1 || !rules[rules.length - 1]?.isDefault)
      ctx.addIssue({ code: 'custom', message: ROUTING_MESSAGES.oneDefault });
    const last = rules[rules.length - 1];
    if (last?.isDefault) {
      const c = last.conditions;
      const set =
        c.channelIds.length +
        c.channelTypes.length +
        c.fulfillmentTypes.length +
        c.countries.length +
        c.regions.length +
        c.postalPrefixes.length +
        c.skus.length +
        c.brands.length +
        c.productTypes.length;
      if (set > 0 || c.minOrderValue !== null || c.maxOrderValue !== null)
        ctx.addIssue({ code: 'custom', message: ROUTING_MESSAGES.defaultConditions, path: [rules.length - 1] });
      if (!last.enabled)
        ctx.addIssue({ code: 'custom', message: ROUTING_MESSAGES.defaultEnabled, path: [rules.length - 1] });
    }
    if (new Set(rules.map((r) => r.id)).size !== rules.length)
      ctx.addIssue({ code: 'custom', message: ROUTING_MESSAGES.duplicateRule });
  });

export const RoutingRuleSet = z.object({
  /** 0: the built-in default (nothing saved yet). */
  version: z.number().int().min(0),
  rules: z.array(RoutingRule),
  note: z.string().nullable(),
  createdBy: z.string().nullable(),
  createdAt: z.date().nullable(),
});
export type RoutingRuleSet = z.infer<typeof RoutingRuleSet>;

export const RoutingVersionSummary = z.object({
  version: z.number().int(),
  ruleCount: z.number().int(),
  note: z.string().nullable(),
  createdBy: z.string().nullable(),
  createdAt: z.date(),
  live: z.boolean(),
});
export const RoutingVersionList = z.object({
  results: z.array(RoutingVersionSummary),
  total: z.number().int(),
});
export type RoutingVersionList = z.infer<typeof RoutingVersionList>;
export const RoutingVersionsInput = z.object({
  limit: z.coerce.number().int().min(1).max(200).catch(25).default(25),
  offset: z.coerce.number().int().min(0).catch(0).default(0),
});
export const RoutingVersionInput = z.object({
  version: wholeNumber('Versions are whole numbers, 0 or more', { min: 0 }),
});

export const SaveRoutingRulesInput = z.object({
  /** The live version the edit started from: saving over a newer one is refused (ROUTING_MESSAGES.staleVersion). */
  baseVersion: z.number().int().min(0),
  /** Rules in order, the default last; a new rule may leave `id` out. Checked as RoutingRules once ids are set. */
  rules: z
    .array(RoutingRule.extend({ id: z.string().trim().max(64).optional() }))
    .min(1)
    .max(ROUTING_LIMITS.rules),
  note: z.string().trim().max(500).optional(),
});
export type SaveRoutingRulesInput = z.input<typeof SaveRoutingRulesInput>;

export const ReorderRoutingRulesInput = z.object({
  baseVersion: z.number().int().min(0),
  order: z.array(z.string().trim().min(1).max(64)).min(1).max(ROUTING_LIMITS.rules),
});

/** What the rule editor and "Why this store" show of a location. */
export const RoutingLocation = z.object({
  id: z.string(),
  name: z.string(),
  storeId: z.string(),
  enabled: z.boolean(),
  ships: z.boolean(),
  pickup: z.boolean(),
  priority: z.number().int(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
});
export type RoutingLocation = z.infer<typeof RoutingLocation>;

// ---------------------------------------------------------------------------------------- the trace

/** Why a candidate location was not used. */
export const REJECTION_REASONS = [
  'disabled',
  'does_not_ship',
  'no_stock',
  'too_far',
  'excluded',
  'hold_back',
  /** Could have helped, but the shipment limit was reached or another location was preferred. */
  'not_needed',
  /** Pickup or curbside: only the customer's chosen store can serve. */
  'not_pickup_store',
] as const;
export const RejectionReason = z.enum(REJECTION_REASONS);
export type RejectionReason = z.infer<typeof RejectionReason>;
export const REJECTION_LABELS: Record<RejectionReason, string> = {
  disabled: 'Disabled',
  does_not_ship: 'Does not ship',
  no_stock: 'No stock',
  too_far: 'Too far',
  excluded: 'Excluded by the rule',
  hold_back: 'Holding back its last units',
  not_needed: 'Not needed',
  not_pickup_store: 'Not the pickup store',
};

/** A rule looked at for a line: matched, or why not (one plain sentence per failed condition). */
export const TraceRule = z.object({
  ruleId: z.string(),
  name: z.string(),
  matched: z.boolean(),
  /** e.g. "The destination country is CA, not US." Empty when matched. */
  failed: z.array(z.string()),
});
export type TraceRule = z.infer<typeof TraceRule>;

export const TraceCandidate = z.object({
  locationId: z.string(),
  name: z.string(),
  /** Units available there (on hand − reserved) when the decision was made. */
  available: z.number().int(),
  /** Great-circle km to the destination; null when either end has no coordinates. */
  distanceKm: z.number().nullable(),
  /** Rank in the order the rule tried them (1 = first); null for those rejected before ranking. */
  rank: z.number().int().nullable(),
  /** Units taken from it for this line (0 when not chosen). */
  taken: z.number().int(),
  rejected: RejectionReason.nullable(),
  /** Plain words: why it was chosen or not. */
  detail: z.string(),
});
export type TraceCandidate = z.infer<typeof TraceCandidate>;

export const LINE_OUTCOMES = ['allocated', 'split', 'unplaced', 'partial'] as const;
export const LineOutcome = z.enum(LINE_OUTCOMES);

export const TraceLine = z.object({
  lineId: z.string(),
  sku: z.string().nullable(),
  quantity: z.number().int(),
  /** The rule used (null: pickup, or no rule could apply). */
  ruleId: z.string().nullable(),
  ruleName: z.string().nullable(),
  /** The rules above the one used, with why each did not apply, then the one that matched. */
  rules: z.array(TraceRule),
  candidates: z.array(TraceCandidate),
  chosen: z.array(z.object({ locationId: z.string(), name: z.string(), quantity: z.number().int() })),
  /** Units nobody could cover (allocation status 4, the order flagged). */
  unplaced: z.number().int(),
  outcome: LineOutcome,
  /** "Why this store", in plain words. */
  explanation: z.string(),
});
export type TraceLine = z.infer<typeof TraceLine>;

export const TraceDestination = z.object({
  country: z.string().nullable(),
  region: z.string().nullable(),
  postalCode: z.string().nullable(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  /** Whether the postal code was found in the offline data set. */
  located: z.boolean(),
  /** e.g. "Postal code 97205 placed at Portland, OR." or why distances are unknown. */
  note: z.string(),
});
export type TraceDestination = z.infer<typeof TraceDestination>;

export const DecisionTrace = z.object({
  ruleSetVersion: z.number().int(),
  fulfillmentType: FulfillmentType,
  destination: TraceDestination,
  lines: z.array(TraceLine),
  /** Distinct locations used (shipments). */
  shipments: z.number().int(),
  /** One paragraph for the whole order. */
  summary: z.string(),
  /** Locations left out of this decision (a re-route leaves out the store that rejected). */
  withoutLocationIds: z.array(z.string()),
});
export type DecisionTrace = z.infer<typeof DecisionTrace>;

export const DECISION_KINDS = ['initial', 'reroute', 'reassign'] as const;
export const DecisionKind = z.enum(DECISION_KINDS);
export type DecisionKind = z.infer<typeof DecisionKind>;

export const RoutingDecision = z.object({
  id: z.string(),
  orderId: z.string(),
  kind: DecisionKind,
  ruleSetVersion: z.number().int(),
  /** The allocations this decision wrote. */
  allocationIds: z.array(z.string()),
  /** Who asked (a person's name for a reject or reassign; null for Switchyard). */
  actor: z.string().nullable(),
  trace: DecisionTrace,
  createdAt: z.date(),
});
export type RoutingDecision = z.infer<typeof RoutingDecision>;

export const OrderRoutingDecisions = z.object({
  orderId: z.string(),
  decisions: z.array(RoutingDecision),
});
export type OrderRoutingDecisions = z.infer<typeof OrderRoutingDecisions>;
export const OrderDecisionsInput = z.object({ orderId: z.string().trim().min(1).max(64) });

// ---------------------------------------------------------------------------------------- dry run, replay

/** Which rules a dry run or replay uses: the live set, a saved version, or a draft typed in the editor. */
export const RuleSetRef = z.discriminatedUnion('source', [
  z.object({ source: z.literal('live') }),
  z.object({ source: z.literal('version'), version: z.number().int().min(0) }),
  /** A draft from the editor: rules not saved yet may leave `id` out (one is made up for the run). */
  z.object({
    source: z.literal('draft'),
    rules: z.array(RoutingRule.extend({ id: z.string().trim().max(64).optional() })).max(ROUTING_LIMITS.rules),
  }),
]);
export type RuleSetRef = z.input<typeof RuleSetRef>;

/** A typed-in order to try the rules on. */
export const HypotheticalOrder = z.object({
  channelId: z.string().trim().max(64).nullable().default(null),
  fulfillmentType: FulfillmentType.default('ship'),
  /** Pickup or curbside: the chosen store. */
  pickupLocationId: z.string().trim().max(64).nullable().default(null),
  country: z.string().trim().max(2).nullable().default('US'),
  region: z.string().trim().max(100).nullable().default(null),
  postalCode: z.string().trim().max(20).nullable().default(null),
  /** Minor units; null: the lines' SKU prices × quantity. */
  total: z.number().int().min(0).nullable().default(null),
  lines: z
    .array(
      z.object({
        sku: z.string().trim().min(1, '* Required').max(200),
        quantity: z.number().int().min(1, 'At least 1').max(100_000),
      }),
    )
    .min(1, 'Add at least one line')
    .max(ROUTING_LIMITS.dryRunLines),
});
export type HypotheticalOrder = z.input<typeof HypotheticalOrder>;

export const DryRunInput = z.object({
  ruleSet: RuleSetRef,
  order: z.union([
    z.object({ orderId: z.string().trim().min(1).max(64) }),
    z.object({ hypothetical: HypotheticalOrder }),
  ]),
});
export type DryRunInput = z.input<typeof DryRunInput>;

export const DryRunResult = z.object({
  trace: DecisionTrace,
  /** For an existing order: where its lines are now, to compare. */
  current: z
    .array(
      z.object({
        lineId: z.string(),
        locationId: z.string().nullable(),
        quantity: z.number().int(),
        status: z.number().int(),
      }),
    )
    .nullable(),
});
export type DryRunResult = z.infer<typeof DryRunResult>;

export const ReplayInput = z.object({
  ruleSet: RuleSetRef,
  /** The last N orders (by placing time) that were routed. */
  limit: z.number().int().min(1).max(ROUTING_LIMITS.replayOrders).default(500),
});
export type ReplayInput = z.input<typeof ReplayInput>;

export const ReplayMetrics = z.object({
  orders: z.number().int(),
  shipments: z.number().int(),
  shipmentsPerOrder: z.number(),
  /** Share (0–1) of orders sent from more than one location. */
  splitRate: z.number(),
  /** Mean km from the shipping location to the destination over shipments whose distance is known. */
  avgDistanceKm: z.number().nullable(),
  unplacedLines: z.number().int(),
});
export type ReplayMetrics = z.infer<typeof ReplayMetrics>;

export const ReplaySummary = z.object({
  ruleSetVersion: z.number().int().nullable(),
  orders: z.number().int(),
  /** What happened (the orders' allocations as they are). */
  actual: ReplayMetrics,
  /** What the rules tried would have done (stock as it is now, each order on its own). */
  draft: ReplayMetrics,
  /** Orders whose locations would differ. */
  changedOrders: z.number().int(),
  /** Some orders that would change, to open in a dry run. */
  examples: z.array(
    z.object({ orderId: z.string(), number: z.string(), actual: z.array(z.string()), draft: z.array(z.string()) }),
  ),
  tookMs: z.number(),
});
export type ReplaySummary = z.infer<typeof ReplaySummary>;

// ---------------------------------------------------------------------------------------- allocations

/** A store says no: rejected (5) or short (4), with a reason; the line is routed again without that store. */
export const RejectAllocationInput = z.object({
  allocationId: z.string().trim().min(1).max(64),
  status: z.union([z.literal(4), z.literal(5)]).default(5),
  reason: z.string().trim().min(1, ROUTING_MESSAGES.reasonRequired).max(500),
  /** The store saying no: refused when the line is no longer there (it was re-routed meanwhile). */
  locationId: z.string().trim().min(1).max(64).optional(),
});
export type RejectAllocationInput = z.input<typeof RejectAllocationInput>;

/** A person moves a line to a location by hand (checked against its stock). */
export const ReassignAllocationInput = z.object({
  allocationId: z.string().trim().min(1).max(64),
  locationId: z.string().trim().min(1).max(64),
  reason: z.string().trim().max(500).optional(),
});
export type ReassignAllocationInput = z.input<typeof ReassignAllocationInput>;

/** SPEC §7 frontend `shipping/updateLocationOrderItem`. */
export const UpdateLocationOrderItemInput = z.discriminatedUnion('action', [
  z.object({
    action: z.literal('reassign'),
    id: z.string().trim().min(1).max(64),
    location_id: z.string().trim().min(1).max(64),
    reason: z.string().trim().max(500).optional(),
  }),
  z.object({
    action: z.literal('reject'),
    id: z.string().trim().min(1).max(64),
    reason: z.string().trim().min(1, ROUTING_MESSAGES.reasonRequired).max(500),
    /** The store saying no (optional guard). */
    location_id: z.string().trim().min(1).max(64).optional(),
  }),
  z.object({
    action: z.literal('short'),
    id: z.string().trim().min(1).max(64),
    reason: z.string().trim().min(1, ROUTING_MESSAGES.reasonRequired).max(500),
    /** The store saying no (optional guard). */
    location_id: z.string().trim().min(1).max(64).optional(),
  }),
]);
export type UpdateLocationOrderItemInput = z.input<typeof UpdateLocationOrderItemInput>;

export const AllocationRow = z.object({
  id: z.string(),
  orderId: z.string(),
  orderNumber: z.string(),
  lineId: z.string(),
  sku: z.string().nullable(),
  title: z.string(),
  locationId: z.string().nullable(),
  locationName: z.string().nullable(),
  storeId: z.string().nullable(),
  quantity: z.number().int(),
  status: z.number().int(),
  reason: z.string().nullable(),
  createdAt: z.date(),
  updatedAt: z.date(),
});
export type AllocationRow = z.infer<typeof AllocationRow>;

/** SPEC §7 frontend `shipping/listOrderItemAllocations`. */
export const ListAllocationsInput = z.object({
  order_id: z.string().trim().min(1).max(64).optional(),
  location_id: z.string().trim().min(1).max(64).optional(),
  /** Empty is "any status", as a missing one is. */
  status: wholeNumberFilter('status must be a whole number from 0 to 5', { min: 0, max: 5 }),
  limit: z.coerce.number().int().min(1).max(200).catch(50).default(50),
  offset: z.coerce.number().int().min(0).catch(0).default(0),
});
export type ListAllocationsInput = z.input<typeof ListAllocationsInput>;
export const AllocationList = z.object({
  results: z.array(AllocationRow),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type AllocationList = z.infer<typeof AllocationList>;
export const AllocationIdInput = z.object({ id: z.string().trim().min(1).max(64) });

/** After a reject, short report or reassign: the line's allocations now, and the decision that placed it. */
export const AllocationUpdateResult = z.object({
  orderId: z.string(),
  allocations: z.array(AllocationRow),
  decision: RoutingDecision.nullable(),
  /** The order still has an allocation at 0, 4 or 5. */
  flagged: z.boolean(),
});
export type AllocationUpdateResult = z.infer<typeof AllocationUpdateResult>;
