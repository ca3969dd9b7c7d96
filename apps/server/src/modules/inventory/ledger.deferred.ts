// A batch of orders (orders/ingest.ts) moves stock many times under locks it takes at its start: every level of
// its variants at every location, and the channel levels its claims meet. Its movements and claims are kept here
// and written together at its end, in a few statements rather than a few per order. In between, `available` is
// what each locked level can cover, kept current by every movement added, so routing decides on it without
// reading the levels again. Anything else that reads or writes levels or claims in the transaction runs after
// `settle()`, which writes what is kept and forgets the view.
import type { Tx } from '../../db/client.ts';
import { insertExpectedClaims, type NewExpectedClaim, setRemaining } from './claims.ts';
import { applyMovementsInSequence, type MovementInput } from './ledger.ts';
import { lockAvailable } from './reservations.ts';

export class DeferredLedger {
  private movements: MovementInput[] = [];
  private claims: NewExpectedClaim[] = [];
  private remaining = new Map<number, number>();
  private view: Map<string, number> | undefined;
  private readonly variants: Set<string>;
  private readonly locations: Set<string>;

  private readonly tx: Tx;
  private readonly accountId: string;
  /** The levels the batch locked: these variants at these locations. */
  private readonly variantIds: string[];
  private readonly locationIds: string[];

  /** `view`: what `lockAvailable` answered when the batch locked the levels, if it just did. */
  constructor(tx: Tx, accountId: string, variantIds: string[], locationIds: string[], view?: Map<string, number>) {
    this.tx = tx;
    this.accountId = accountId;
    this.variantIds = variantIds;
    this.locationIds = locationIds;
    this.view = view;
    this.variants = new Set(variantIds);
    this.locations = new Set(locationIds);
  }

  /** Whether a level is one the batch holds locked (a movement elsewhere must not be kept here). */
  holds(variantId: string, locationId: string) {
    return this.variants.has(variantId) && this.locations.has(locationId);
  }

  /**
   * What each locked level can cover now (on_hand − reserved, `${variantId}|${locationId}`), with what is kept
   * and not written yet; read once, then kept current by `move`.
   */
  async available(): Promise<Map<string, number>> {
    if (!this.view) {
      const view = await lockAvailable(this.tx, this.accountId, this.variantIds, this.locationIds);
      for (const m of this.movements) follow(view, m);
      this.view = view;
    }
    return this.view;
  }

  /** A movement of a locked level, with a fresh key: kept, and what the level can cover follows it. */
  move(m: MovementInput) {
    if (!this.holds(m.variantId, m.locationId)) throw new Error('ledger: a kept movement of a level not locked');
    this.movements.push(m);
    if (this.view) follow(this.view, m);
  }

  /** A new expected claim (its key fresh in this transaction). */
  claim(c: NewExpectedClaim) {
    this.claims.push(c);
  }

  /** What is left of a counted claim the batch holds locked. */
  setRemaining(id: number, remaining: number) {
    this.remaining.set(id, remaining);
  }

  /** Writes what is kept: the claims, what is left of those met, then the movements and their levels. */
  async flush() {
    const claims = this.claims.splice(0);
    const movements = this.movements.splice(0);
    const remaining = [...this.remaining].map(([id, left]) => ({ id, remaining: left }));
    this.remaining.clear();
    await insertExpectedClaims(this.tx, this.accountId, claims);
    await setRemaining(this.tx, remaining);
    await applyMovementsInSequence(this.tx, this.accountId, movements);
  }

  /** Before something else reads or moves stock in the transaction: written, and the view read again on next use. */
  async settle() {
    await this.flush();
    this.view = undefined;
  }
}

/** What a level can cover after a movement. */
function follow(view: Map<string, number>, m: MovementInput) {
  const key = `${m.variantId}|${m.locationId}`;
  view.set(key, (view.get(key) ?? 0) + (m.delta ?? 0) - (m.reservedDelta ?? 0));
}
