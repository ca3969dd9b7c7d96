import type { ChannelType, DecisionTrace, FulfillmentType, RoutingRule } from '@switchyard/contracts';

/** A location as the engine sees it. */
export interface EngineLocation {
  id: string;
  name: string;
  storeId?: string;
  enabled: boolean;
  ships: boolean;
  pickup: boolean;
  /** Routing order: lower first. */
  priority: number;
  latitude: number | null;
  longitude: number | null;
}

/** A line to place: only lines whose SKU is in the catalog (a variant) reach the engine. */
export interface EngineLine {
  id: string;
  sku: string | null;
  title?: string | null;
  variantId: string;
  quantity: number;
  brand: string | null;
  productType: string | null;
}

export interface EngineOrder {
  channelId: string | null;
  channelName: string | null;
  channelType: ChannelType | null;
  fulfillmentType: FulfillmentType;
  /** Pickup or curbside: the customer's chosen store (ours). */
  pickupLocationId: string | null;
  /** Where the channel took the units itself (ours): first among locations of equal priority. */
  channelLocationId: string | null;
  /** ISO alpha-2 where known. */
  country: string | null;
  region: string | null;
  postalCode: string | null;
  /** Minor units. */
  total: number;
  currency: string;
  lines: EngineLine[];
}

export interface EngineInput {
  order: EngineOrder;
  locations: EngineLocation[];
  /** Units available (on hand − reserved) of a variant at a location; missing: 0. */
  available: (variantId: string, locationId: string) => number;
  rules: RoutingRule[];
  ruleSetVersion: number;
  /** Locations to leave out (a re-route leaves out the store that said no). */
  without?: string[];
  /** false: the plan only, without each line's candidates and explanation (a replay's thousands of orders). */
  explain?: boolean;
}

export interface Placement {
  lineId: string;
  variantId: string;
  locationId: string;
  quantity: number;
}

export interface Unplaced {
  lineId: string;
  variantId: string;
  quantity: number;
  /** 0: no location could be tried at all; 4: none had the stock within the rule's limits. */
  status: 0 | 4;
  reason: string;
}

export interface Plan {
  placements: Placement[];
  unplaced: Unplaced[];
  trace: DecisionTrace;
}
