// The routing engine (issue 14): a pure function from an order, its lines, the locations, what each location
// has available and the merchant's rules to a plan (which location sends how many units of each line) and the
// trace that explains it. No database here: the caller reads `available` under the lock of the levels and
// reserves the plan in the same transaction (routing.service.ts), or only shows it (dry run, replay).
import {
  DEFAULT_ROUTING_RULE,
  type DecisionTrace,
  type RejectionReason,
  type RoutingRule,
  type TraceCandidate,
  type TraceLine,
  type TraceRule,
} from '@switchyard/contracts';
import { lineConditionFailures, orderConditionFailures } from './conditions.ts';
import type { EngineInput, EngineLine, EngineLocation, Placement, Plan, Unplaced } from './engine.types.ts';
import { distanceKm, placePostalCode } from './geo.ts';

const km = (d: number | null) => (d === null ? '' : ` (${d < 10 ? d.toFixed(1) : Math.round(d)} km away)`);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const lineLabel = (l: EngineLine) => l.sku ?? l.title ?? 'the line';

interface LineState {
  line: EngineLine;
  rules: TraceRule[];
  rule: RoutingRule | null;
  picks: { locationId: string; quantity: number }[];
  unplaced: Unplaced | null;
  candidates: TraceCandidate[];
  explanation: string;
}

/** Routes an order: see the top of this file. */
export function route(input: EngineInput): Plan {
  const { order } = input;
  const placed = placePostalCode(order.postalCode, order.country);
  const dest = placed.point;
  const byId = new Map(input.locations.map((l) => [l.id, l]));
  const distance = new Map<string, number | null>();
  for (const l of input.locations)
    distance.set(
      l.id,
      dest && l.latitude !== null && l.longitude !== null
        ? distanceKm(dest, { latitude: l.latitude, longitude: l.longitude })
        : null,
    );
  const without = new Set(input.without ?? []);
  // What is left at each level as lines take units (two lines of one SKU share a level).
  // Read once per (SKU, location) into arrays by location index: the plan and its trace look levels up often.
  const index = new Map(input.locations.map((l, i) => [l.id, i]));
  const had = new Map<string, Int32Array>();
  const taken = new Map<string, Int32Array>();
  for (const line of order.lines) {
    if (had.has(line.variantId)) continue;
    const row = new Int32Array(input.locations.length);
    for (const [i, l] of input.locations.entries()) row[i] = input.available(line.variantId, l.id);
    had.set(line.variantId, row);
    taken.set(line.variantId, new Int32Array(input.locations.length));
  }
  const available = (v: string, l: string) => {
    const i = index.get(l);
    const row = had.get(v);
    return i === undefined || !row ? input.available(v, l) : (row[i] ?? 0);
  };
  const left = (v: string, l: string) => {
    const i = index.get(l);
    return available(v, l) - (i === undefined ? 0 : (taken.get(v)?.[i] ?? 0));
  };
  const take = (v: string, l: string, q: number) => {
    const i = index.get(l);
    const row = taken.get(v);
    if (i !== undefined && row) row[i] = (row[i] ?? 0) + q;
  };

  const states: LineState[] =
    order.fulfillmentType === 'ship'
      ? routeShipping(input, { byId, distance, without, available, left, take, located: !!dest })
      : routePickup(input, { byId, distance, without, available, left, take });

  const placements: Placement[] = [];
  const unplaced: Unplaced[] = [];
  const lines: TraceLine[] = [];
  const used = new Set<string>();
  for (const s of states) {
    for (const p of s.picks) {
      placements.push({
        lineId: s.line.id,
        variantId: s.line.variantId,
        locationId: p.locationId,
        quantity: p.quantity,
      });
      used.add(p.locationId);
    }
    if (s.unplaced) unplaced.push(s.unplaced);
    lines.push({
      lineId: s.line.id,
      sku: s.line.sku,
      quantity: s.line.quantity,
      ruleId: s.rule?.id ?? null,
      ruleName: s.rule?.name ?? null,
      rules: s.rules,
      candidates: s.candidates,
      chosen: s.picks.map((p) => ({
        locationId: p.locationId,
        name: byId.get(p.locationId)?.name ?? p.locationId,
        quantity: p.quantity,
      })),
      unplaced: s.unplaced?.quantity ?? 0,
      outcome: s.unplaced ? 'unplaced' : s.picks.length > 1 ? 'split' : 'allocated',
      explanation: s.explanation,
    });
  }
  const trace: DecisionTrace = {
    ruleSetVersion: input.ruleSetVersion,
    fulfillmentType: order.fulfillmentType,
    destination: {
      country: order.country,
      region: order.region,
      postalCode: order.postalCode,
      latitude: dest?.latitude ?? null,
      longitude: dest?.longitude ?? null,
      located: !!dest,
      note: placed.note,
    },
    lines,
    shipments: used.size,
    summary: summaryOf(states.length, used.size, unplaced.length, input.ruleSetVersion, without.size),
    withoutLocationIds: [...without],
  };
  return { placements, unplaced, trace };
}

function summaryOf(lines: number, shipments: number, unplaced: number, version: number, without: number) {
  const placedLines = lines - unplaced;
  const parts = [
    `${plural(placedLines, 'line')} of ${lines} placed in ${plural(shipments, 'shipment')}`,
    unplaced
      ? `${plural(unplaced, 'line')} could not be placed and ${unplaced === 1 ? 'flags' : 'flag'} the order`
      : '',
    without ? `${plural(without, 'location')} left out after saying no` : '',
  ].filter(Boolean);
  const rules =
    version < 0
      ? 'Draft rules (not saved)'
      : `Rules version ${version}${version === 0 ? ' (the built-in default)' : ''}`;
  return `${parts.join('; ')}. ${rules}.`;
}

interface Ctx {
  byId: Map<string, EngineLocation>;
  distance: Map<string, number | null>;
  without: Set<string>;
  /** What a level had when the decision began. */
  available: (variantId: string, locationId: string) => number;
  left: (variantId: string, locationId: string) => number;
  take: (variantId: string, locationId: string, quantity: number) => void;
  located?: boolean;
}

/** Pickup and curbside: the customer's store, whole, or flagged. Rules do not apply; nothing is split. */
function routePickup(input: EngineInput, ctx: Ctx): LineState[] {
  const store = input.order.pickupLocationId ? ctx.byId.get(input.order.pickupLocationId) : undefined;
  const kind = input.order.fulfillmentType === 'curbside_pickup' ? 'curbside pickup' : 'pickup';
  return input.order.lines.map((line) => {
    const state: LineState = {
      line,
      rules: [],
      rule: null,
      picks: [],
      unplaced: null,
      candidates: [],
      explanation: '',
    };
    const fail = (status: 0 | 4, reason: string) => {
      state.unplaced = { lineId: line.id, variantId: line.variantId, quantity: line.quantity, status, reason };
      state.explanation = `A ${kind} order is served by the customer's store only and never split: ${reason}`;
    };
    if (!store) {
      fail(0, 'the pickup store is not one of your locations.');
      return state;
    }
    const available = ctx.left(line.variantId, store.id);
    const candidate: TraceCandidate = {
      locationId: store.id,
      name: store.name,
      available: ctx.available(line.variantId, store.id),
      distanceKm: ctx.distance.get(store.id) ?? null,
      rank: 1,
      taken: 0,
      rejected: null,
      detail: '',
    };
    state.candidates.push(candidate);
    if (ctx.without.has(store.id)) {
      candidate.rejected = 'excluded';
      candidate.detail = `${store.name} said no to this line.`;
      fail(4, `${store.name} said no to this line, and a ${kind} cannot move to another store.`);
    } else if (!store.enabled) {
      candidate.rejected = 'disabled';
      candidate.detail = `${store.name} is disabled.`;
      fail(0, `${store.name} is disabled.`);
    } else if (available < line.quantity) {
      candidate.rejected = 'no_stock';
      candidate.detail = `Has ${Math.max(available, 0)}, needs ${line.quantity}.`;
      fail(4, `${store.name} has ${Math.max(available, 0)} of ${lineLabel(line)}, ${line.quantity} needed.`);
    } else {
      ctx.take(line.variantId, store.id, line.quantity);
      candidate.taken = line.quantity;
      candidate.detail = `The customer's ${kind} store, with ${available} available.`;
      state.picks.push({ locationId: store.id, quantity: line.quantity });
      state.explanation = `A ${kind} order: ${line.quantity} × ${lineLabel(line)} from ${store.name}, the store the customer chose.`;
    }
    return state;
  });
}

/** Shipping: each line takes the first rule that applies to it; the lines of one rule are planned together. */
function routeShipping(input: EngineInput, ctx: Ctx): LineState[] {
  const rules = input.rules.length ? input.rules : [DEFAULT_ROUTING_RULE];
  const orderFails = rules.map((r) => (r.enabled ? orderConditionFailures(r, input.order) : ['The rule is off.']));
  const groups = new Map<number, LineState[]>();
  const states: LineState[] = [];
  for (const line of input.order.lines) {
    const traced: TraceRule[] = [];
    let matched = -1;
    for (const [i, rule] of rules.entries()) {
      const failed = [...(orderFails[i] ?? []), ...(rule.enabled ? lineConditionFailures(rule, line) : [])];
      traced.push({ ruleId: rule.id, name: rule.name, matched: failed.length === 0, failed });
      if (failed.length === 0) {
        matched = i;
        break;
      }
    }
    const rule = matched >= 0 ? (rules[matched] as RoutingRule) : DEFAULT_ROUTING_RULE;
    const state: LineState = { line, rules: traced, rule, picks: [], unplaced: null, candidates: [], explanation: '' };
    states.push(state);
    const group = groups.get(matched) ?? [];
    group.push(state);
    groups.set(matched, group);
  }
  for (const group of groups.values()) planGroup(input, ctx, group);
  return states;
}

/** Plans the lines one rule applies to, by its strategy, then writes each line's candidates and explanation. */
function planGroup(input: EngineInput, ctx: Ctx, group: LineState[]) {
  const rule = group[0]?.rule as RoutingRule;
  const s = rule.strategy;
  const own = (l: EngineLocation) => (l.id === input.order.channelLocationId ? 0 : 1);
  const base = s.locationIds.length
    ? s.locationIds.map((id) => ctx.byId.get(id)).filter((l): l is EngineLocation => !!l)
    : [...input.locations].sort(
        (a, b) => a.priority - b.priority || own(a) - own(b) || a.name.localeCompare(b.name) || (a.id < b.id ? -1 : 1),
      );
  const excluded = new Set(s.excludeLocationIds);
  const staticReason = new Map<string, { reason: RejectionReason; detail: string }>();
  for (const l of base) {
    const d = ctx.distance.get(l.id) ?? null;
    if (ctx.without.has(l.id))
      staticReason.set(l.id, { reason: 'excluded', detail: `${l.name} said no to this line.` });
    else if (excluded.has(l.id)) staticReason.set(l.id, { reason: 'excluded', detail: 'Excluded by the rule.' });
    else if (!l.enabled) staticReason.set(l.id, { reason: 'disabled', detail: `${l.name} is disabled.` });
    else if (!l.ships) staticReason.set(l.id, { reason: 'does_not_ship', detail: `${l.name} does not ship orders.` });
    else if (s.maxDistanceKm !== null && d !== null && d > s.maxDistanceKm)
      staticReason.set(l.id, {
        reason: 'too_far',
        detail: `${Math.round(d)} km away, over the rule's limit of ${s.maxDistanceKm} km.`,
      });
  }
  const eligible = base.filter((l) => !staticReason.has(l.id));
  const nearest = s.nearestFirst && ctx.located;
  const ranked = nearest
    ? eligible
        .map((l, i) => ({ l, i, d: ctx.distance.get(l.id) ?? null }))
        .sort((a, b) => (a.d ?? Number.POSITIVE_INFINITY) - (b.d ?? Number.POSITIVE_INFINITY) || a.i - b.i)
        .map((x) => x.l)
    : eligible;
  const rank = new Map(ranked.map((l, i) => [l.id, i + 1]));
  const usable = (st: LineState, l: EngineLocation) => Math.max(0, ctx.left(st.line.variantId, l.id) - s.holdBackUnits);
  const used: string[] = [];
  let whole: EngineLocation | undefined;

  // Keep the lines together: the first location (in rank) that can send all of them.
  if (s.keepWhole && group.length > 1) {
    whole = ranked.find((l) => {
      const need = new Map<string, number>();
      for (const st of group) need.set(st.line.variantId, (need.get(st.line.variantId) ?? 0) + st.line.quantity);
      return [...need].every(([v, q]) => Math.max(0, ctx.left(v, l.id) - s.holdBackUnits) >= q);
    });
  }
  const limitHit = new Set<string>();
  for (const st of group) {
    const q = st.line.quantity;
    if (whole) {
      ctx.take(st.line.variantId, whole.id, q);
      st.picks.push({ locationId: whole.id, quantity: q });
      if (!used.includes(whole.id)) used.push(whole.id);
      continue;
    }
    const tryOrder = s.keepWhole
      ? [...ranked.filter((l) => used.includes(l.id)), ...ranked.filter((l) => !used.includes(l.id))]
      : ranked;
    const canOpen = (l: EngineLocation, u: string[]) => u.includes(l.id) || u.length < s.maxShipments;
    const one = tryOrder.find((l) => canOpen(l, used) && usable(st, l) >= q);
    for (const l of tryOrder) if (!canOpen(l, used) && usable(st, l) >= q) limitHit.add(`${st.line.id}|${l.id}`);
    if (one) {
      ctx.take(st.line.variantId, one.id, q);
      st.picks.push({ locationId: one.id, quantity: q });
      if (!used.includes(one.id)) used.push(one.id);
      continue;
    }
    if (s.splitLines) {
      const u = [...used];
      const picks: { locationId: string; quantity: number }[] = [];
      let rem = q;
      for (const l of tryOrder) {
        if (rem === 0) break;
        if (!canOpen(l, u)) continue;
        const has = usable(st, l);
        if (has <= 0) continue;
        const n = Math.min(has, rem);
        picks.push({ locationId: l.id, quantity: n });
        rem -= n;
        if (!u.includes(l.id)) u.push(l.id);
      }
      if (rem === 0) {
        for (const p of picks) ctx.take(st.line.variantId, p.locationId, p.quantity);
        st.picks = picks;
        used.splice(0, used.length, ...u);
        continue;
      }
    }
    const status: 0 | 4 = ranked.length === 0 ? 0 : 4;
    const within = s.maxShipments < 20 ? ` within ${plural(s.maxShipments, 'shipment')}` : '';
    st.unplaced = {
      lineId: st.line.id,
      variantId: st.line.variantId,
      quantity: q,
      status,
      reason:
        status === 0
          ? `No location of rule "${rule.name}" can send orders (each is disabled, excluded, too far or does not ship).`
          : `No location of rule "${rule.name}" can cover ${q} × ${lineLabel(st.line)}${within}${s.splitLines ? '' : ' from one location'}.`,
    };
  }

  // The trace: every location the rule looked at, with what it had and why it was or was not used.
  if (input.explain === false) return;
  for (const st of group) {
    const q = st.line.quantity;
    const chosen = new Map(st.picks.map((p) => [p.locationId, p.quantity]));
    st.candidates = base.map((l) => {
      const had = ctx.available(st.line.variantId, l.id);
      const d = ctx.distance.get(l.id) ?? null;
      const fixed = staticReason.get(l.id);
      const c: TraceCandidate = {
        locationId: l.id,
        name: l.name,
        available: had,
        distanceKm: d,
        rank: rank.get(l.id) ?? null,
        taken: chosen.get(l.id) ?? 0,
        rejected: null,
        detail: '',
      };
      if (fixed) {
        c.rejected = fixed.reason;
        c.detail = fixed.detail;
      } else if (c.taken > 0) {
        c.detail = chosenDetail(c.taken, q, had, whole?.id === l.id, nearest ? d : null, rule);
      } else if (had <= 0) {
        c.rejected = 'no_stock';
        c.detail = 'Has none available.';
      } else if (s.holdBackUnits > 0 && had >= q && had - s.holdBackUnits < q) {
        c.rejected = 'hold_back';
        c.detail = `Has ${had}, but the rule keeps its last ${plural(s.holdBackUnits, 'unit')}.`;
      } else if (had < q && !s.splitLines) {
        c.rejected = 'no_stock';
        c.detail = `Has ${had}, needs ${q}.`;
      } else {
        c.rejected = 'not_needed';
        c.detail = limitHit.has(`${st.line.id}|${l.id}`)
          ? `Could send it, but the rule allows at most ${plural(s.maxShipments, 'shipment')}.`
          : st.unplaced
            ? `Has ${had}, not enough with the others to cover ${q}.`
            : `Could send it, but ${[...chosen.keys()].map((id) => ctx.byId.get(id)?.name ?? id).join(' and ')} came first.`;
      }
      return c;
    });
    st.explanation = explain(st, rule, ctx, nearest ?? false, whole?.id ?? null);
  }
}

function chosenDetail(
  takenQty: number,
  needed: number,
  had: number,
  whole: boolean,
  d: number | null,
  rule: RoutingRule,
) {
  if (whole) return `Chosen: can send the whole order in one shipment${km(d)}.`;
  if (takenQty < needed) return `Chosen for ${takenQty} of ${needed} (had ${had})${km(d)}.`;
  if (d !== null) return `Chosen: the nearest with ${needed} available${km(d)}.`;
  return `Chosen: the first in ${rule.strategy.locationIds.length ? "the rule's group" : 'priority order'} with ${needed} available (had ${had}).`;
}

function explain(st: LineState, rule: RoutingRule, ctx: Ctx, nearest: boolean, whole: string | null) {
  const skipped = st.rules.filter((r) => !r.matched);
  const ruleText =
    skipped.length === 0
      ? `Rule "${rule.name}" applies.`
      : `Rule "${rule.name}" applies; ${skipped.length === 1 ? `"${skipped[0]?.name}" above it did not` : `the ${skipped.length} rules above it did not`} (${skipped
          .map((r) => r.failed[0])
          .filter(Boolean)
          .slice(0, 2)
          .join(' ')
          .replace(/\.$/, '')}).`;
  if (st.unplaced) return `${ruleText} ${st.unplaced.reason} The order is flagged for routing again.`;
  const name = (id: string) => ctx.byId.get(id)?.name ?? id;
  const dist = (id: string) => km(ctx.distance.get(id) ?? null);
  if (st.picks.length > 1)
    return `${ruleText} Split: ${st.picks.map((p) => `${p.quantity} from ${name(p.locationId)}${dist(p.locationId)}`).join(', ')}; no single location had ${st.line.quantity}.`;
  const pick = st.picks[0];
  if (!pick) return ruleText;
  const where = `${name(pick.locationId)}${dist(pick.locationId)}`;
  if (whole && nearest)
    return `${ruleText} ${where} is the nearest location that can send the whole order in one shipment.`;
  if (whole) return `${ruleText} ${where} can send the whole order in one shipment.`;
  if (nearest) return `${ruleText} ${where} is the nearest location that can send ${st.line.quantity}.`;
  return `${ruleText} ${where} is the first location in ${rule.strategy.locationIds.length ? "the rule's group" : 'priority order'} that can send ${st.line.quantity}.`;
}
