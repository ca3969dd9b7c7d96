import { createRng, type Rng, seedFrom } from '../rng.ts';

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const MIXED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function draw(rng: Rng, alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(rng.next() * alphabet.length)];
  return out;
}

/**
 * Square's id formats: catalog objects are 24 upper-case characters, merchants and locations 13, orders
 * 27 mixed-case characters, payments 28 (their first four characters are the receipt number).
 */
export const squareId = {
  /** The same name gives the same id, so a seeded merchant's objects keep their ids across resets. */
  stable: (name: string, length = 24) => draw(createRng(seedFrom(name)), UPPER, length),
  catalog: (rng: Rng) => draw(rng, UPPER, 24),
  order: (rng: Rng) => draw(rng, MIXED, 27),
  payment: (rng: Rng) => draw(rng, MIXED, 28),
  uid: (rng: Rng) => draw(rng, MIXED, 22),
  /** Tokens and codes: not derived from the seed, so they cannot be guessed from a merchant id. */
  secret: (prefix: string, length = 48) => {
    const bytes = crypto.getRandomValues(new Uint8Array(length));
    let out = prefix;
    for (const b of bytes) out += MIXED[b % MIXED.length];
    return out;
  },
};
