// Inventory: the per-state ledger of physical counts and adjustments, BatchChangeInventory (validated all or
// nothing), inventory.count.updated, and the Dashboard's count / receive / waste.

import { squareId } from './ids.ts';
import { DAY, type InventoryCount, invalid, type Json, type LedgerEntry, SquareError, STATES } from './model.ts';
import type { Merchant } from './state.ts';

function countKey(objectId: string, locationId: string, state: string) {
  return `${objectId}|${locationId}|${state}`;
}

export function quantity(m: Merchant, objectId: string, locationId: string, state = 'IN_STOCK'): number {
  return m.counts.get(countKey(objectId, locationId, state))?.quantity ?? 0;
}

/** Adds a ledger entry and recomputes: the last physical count plus every later adjustment, by occurred_at. */
export function record(
  m: Merchant,
  objectId: string,
  locationId: string,
  state: string,
  kind: 'count' | 'delta',
  quantity: number,
  occurredAt: number,
) {
  const key = countKey(objectId, locationId, state);
  let count = m.counts.get(key);
  if (!count) {
    count = { objectId, locationId, state, quantity: 0, calculatedAt: '', ledger: [] };
    m.counts.set(key, count);
  }
  count.ledger.push({ occurredAt, seq: ++m.seq, kind, quantity });
  count.ledger.sort((a, b) => a.occurredAt - b.occurredAt || a.seq - b.seq);
  let total = 0;
  for (const entry of count.ledger) total = entry.kind === 'count' ? entry.quantity : total + entry.quantity;
  // No new change may be older than 24 hours, so everything before that folds into one count.
  const horizon = Date.now() - DAY - 60_000;
  const old = count.ledger.filter((e) => e.occurredAt < horizon);
  if (old.length > 1) {
    let folded = 0;
    for (const entry of old) folded = entry.kind === 'count' ? entry.quantity : folded + entry.quantity;
    const last = old[old.length - 1] as LedgerEntry;
    count.ledger = [
      { occurredAt: last.occurredAt, seq: last.seq, kind: 'count', quantity: folded },
      ...count.ledger.slice(old.length),
    ];
  }
  count.quantity = total;
  count.calculatedAt = m.now();
  return count;
}

export function renderCount(m: Merchant, objectId: string, locationId: string, state = 'IN_STOCK'): InventoryCount {
  const count = m.counts.get(countKey(objectId, locationId, state));
  return {
    catalog_object_id: objectId,
    catalog_object_type: 'ITEM_VARIATION',
    state,
    location_id: locationId,
    quantity: String(count?.quantity ?? 0),
    calculated_at: count?.calculatedAt || m.now(),
    is_estimated: false,
  };
}

export function allCounts(m: Merchant): InventoryCount[] {
  return [...m.counts.values()].map((c) => m.renderCount(c.objectId, c.locationId, c.state));
}

/** A change as BatchChangeInventory answers it: the request's body with Square's id, quantity and times. */
function asCreated(
  type: 'PHYSICAL_COUNT' | 'ADJUSTMENT',
  field: 'physical_count' | 'adjustment',
  raw: Json,
  made: { id: string; quantity: number; occurred_at: string; created_at: string },
): Json {
  const body = raw[field] as Json;
  return {
    type,
    [field]: { ...body, ...made, quantity: String(made.quantity), catalog_object_type: 'ITEM_VARIATION' },
  };
}

/**
 * BatchChangeInventory: validates every change first (all or nothing), then applies them and reports the
 * counts that changed. Returns the created changes (with ids) and the current counts of every object touched.
 */
export function applyChanges(
  m: Merchant,
  changes: Json[],
  ignoreUnchanged: boolean,
): { changes: Json[]; counts: InventoryCount[] } {
  const now = Date.now();
  type Parsed = {
    raw: Json;
    kind: 'count' | 'adjust';
    objectId: string;
    locationId: string;
    from: string;
    to: string;
    quantity: number;
    at: number;
  };
  const parsed: Parsed[] = changes.map((change, i) => {
    const field = `changes[${i}]`;
    const kind = change.type === 'PHYSICAL_COUNT' ? 'count' : change.type === 'ADJUSTMENT' ? 'adjust' : null;
    if (!kind) throw invalid('INVALID_ENUM_VALUE', `Expected PHYSICAL_COUNT or ADJUSTMENT.`, `${field}.type`);
    const body = (kind === 'count' ? change.physical_count : change.adjustment) as Json | undefined;
    const path = `${field}.${kind === 'count' ? 'physical_count' : 'adjustment'}`;
    if (!body) throw invalid('MISSING_REQUIRED_PARAMETER', `Field \`${path}\` is required.`, path);
    const objectId = String(body.catalog_object_id ?? '');
    const object = m.objects.get(objectId);
    if (!object || object.is_deleted || object.type !== 'ITEM_VARIATION') {
      throw invalid(
        'INVALID_VALUE',
        `Catalog object \`${objectId}\` is not an item variation.`,
        `${path}.catalog_object_id`,
      );
    }
    const locationId = String(body.location_id ?? '');
    if (!m.location(locationId))
      throw invalid('INVALID_VALUE', `Location \`${locationId}\` not found.`, `${path}.location_id`);
    const quantityText = String(body.quantity ?? '');
    if (!/^-?\d+(\.\d{1,5})?$/.test(quantityText)) {
      throw invalid('INVALID_VALUE', 'Quantity must be a decimal string.', `${path}.quantity`);
    }
    const quantity = Number(quantityText);
    if (quantity < 0) throw invalid('INVALID_VALUE', 'Quantity must not be negative.', `${path}.quantity`);
    const at = body.occurred_at === undefined ? now : Date.parse(String(body.occurred_at));
    if (Number.isNaN(at))
      throw invalid('INVALID_TIME', 'occurred_at is not an RFC 3339 timestamp.', `${path}.occurred_at`);
    if (at > now + 60_000) throw invalid('INVALID_TIME', 'occurred_at is in the future.', `${path}.occurred_at`);
    if (at < now - DAY) throw invalid('INVALID_TIME', 'occurred_at is more than 24 hours ago.', `${path}.occurred_at`);
    let from = 'NONE';
    let to = String(body.state ?? '');
    if (kind === 'adjust') {
      from = String(body.from_state ?? '');
      to = String(body.to_state ?? '');
      if (!STATES.has(from)) throw invalid('INVALID_ENUM_VALUE', 'Unknown from_state.', `${path}.from_state`);
      if (from === to) throw invalid('INVALID_VALUE', 'from_state and to_state must differ.', `${path}.to_state`);
    }
    if (!STATES.has(to) || to === 'NONE')
      throw invalid('INVALID_ENUM_VALUE', 'Unknown state.', `${path}.${kind === 'count' ? 'state' : 'to_state'}`);
    return { raw: change, kind, objectId, locationId, from, to, quantity, at };
  });
  const created: Json[] = [];
  const touched = new Map<string, { objectId: string; locationId: string; state: string }>();
  const note = (objectId: string, locationId: string, state: string) =>
    touched.set(countKey(objectId, locationId, state), { objectId, locationId, state });
  const changed: InventoryCount[] = [];
  for (const c of parsed) {
    const id = squareId.catalog(m.rng);
    const occurred_at = new Date(c.at).toISOString();
    const created_at = m.now();
    if (c.kind === 'count') {
      note(c.objectId, c.locationId, c.to);
      if (ignoreUnchanged && m.quantity(c.objectId, c.locationId, c.to) === c.quantity) continue;
      m.record(c.objectId, c.locationId, c.to, 'count', c.quantity, c.at);
      changed.push(m.renderCount(c.objectId, c.locationId, c.to));
      created.push(
        asCreated('PHYSICAL_COUNT', 'physical_count', c.raw, { id, quantity: c.quantity, occurred_at, created_at }),
      );
    } else {
      if (c.from !== 'NONE') {
        m.record(c.objectId, c.locationId, c.from, 'delta', -c.quantity, c.at);
        note(c.objectId, c.locationId, c.from);
        changed.push(m.renderCount(c.objectId, c.locationId, c.from));
      }
      m.record(c.objectId, c.locationId, c.to, 'delta', c.quantity, c.at);
      note(c.objectId, c.locationId, c.to);
      changed.push(m.renderCount(c.objectId, c.locationId, c.to));
      created.push(asCreated('ADJUSTMENT', 'adjustment', c.raw, { id, quantity: c.quantity, occurred_at, created_at }));
    }
  }
  announce(m, changed);
  return {
    changes: created,
    counts: [...touched.values()].map((t) => m.renderCount(t.objectId, t.locationId, t.state)),
  };
}

/** Sends inventory.count.updated for the counts that changed (IN_STOCK and the other states alike). */
function announce(m: Merchant, counts: InventoryCount[]) {
  const latest = new Map(counts.map((c) => [`${c.catalog_object_id}|${c.location_id}|${c.state}`, c]));
  const list = [...latest.values()];
  for (let i = 0; i < list.length; i += 100)
    m.emit({ type: 'inventory.count.updated', counts: list.slice(i, i + 100) });
}

/** As if changed in the Square Dashboard: a physical count (quantity) or a receive / waste adjustment (delta). */
export function adjust(
  m: Merchant,
  sku: string,
  locationId: string | undefined,
  change: { quantity?: number; delta?: number },
) {
  const variation = m.variationBySku(sku);
  if (!variation) throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `No variation with SKU ${sku}.`);
  const location = locationId ? m.location(locationId) : m.locations[0];
  if (!location) throw new SquareError(404, 'INVALID_REQUEST_ERROR', 'NOT_FOUND', `Location ${locationId} not found.`);
  const at = new Date().toISOString();
  if (change.quantity !== undefined) {
    m.applyChanges(
      [
        {
          type: 'PHYSICAL_COUNT',
          physical_count: {
            catalog_object_id: variation.id,
            location_id: location.id,
            state: 'IN_STOCK',
            quantity: String(change.quantity),
            occurred_at: at,
          },
        },
      ],
      false,
    );
  } else if (change.delta) {
    const up = change.delta > 0;
    m.applyChanges(
      [
        {
          type: 'ADJUSTMENT',
          adjustment: {
            catalog_object_id: variation.id,
            location_id: location.id,
            from_state: up ? 'NONE' : 'IN_STOCK',
            to_state: up ? 'IN_STOCK' : 'WASTE',
            quantity: String(Math.abs(change.delta)),
            occurred_at: at,
          },
        },
      ],
      false,
    );
  }
}
