import { describe, expect, it } from 'vitest';
import { luhnValid, parseCard, routingValid } from './cards.ts';
import { addInterval, formatMoney } from './money.ts';

const at = (iso: string) => Date.parse(iso) / 1000;
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

describe('billing periods', () => {
  it('keeps the anchor day, clamped to short months, like Stripe', () => {
    const anchor = at('2026-01-31T10:00:00Z');
    const feb = addInterval(anchor, 'month', 1, anchor);
    expect(iso(feb)).toBe('2026-02-28T10:00:00.000Z');
    const mar = addInterval(feb, 'month', 1, anchor);
    expect(iso(mar)).toBe('2026-03-31T10:00:00.000Z');
    expect(iso(addInterval(at('2027-12-15T00:00:00Z'), 'month', 1))).toBe('2028-01-15T00:00:00.000Z');
  });

  it('a yearly period from 29 February ends on 28 February', () => {
    const leap = at('2028-02-29T12:00:00Z');
    expect(iso(addInterval(leap, 'year', 1, leap))).toBe('2029-02-28T12:00:00.000Z');
    expect(iso(addInterval(at('2026-11-22T07:00:00Z'), 'week', 2))).toBe('2026-12-06T07:00:00.000Z');
  });
});

describe('money', () => {
  it('formats minor units per currency', () => {
    expect(formatMoney(2900, 'usd')).toBe('$29.00');
    expect(formatMoney(-1234, 'usd')).toBe('-$12.34');
    expect(formatMoney(2900, 'eur')).toBe('€29.00');
    expect(formatMoney(500, 'jpy')).toBe('¥500');
  });
});

describe('card checks', () => {
  it('knows valid numbers and routing numbers', () => {
    expect(luhnValid('4242424242424242')).toBe(true);
    expect(luhnValid('4242424242424241')).toBe(false);
    expect(routingValid('110000000')).toBe(true);
    expect(routingValid('110000001')).toBe(false);
  });

  it('accepts the usual ways of typing an expiry and wants 4 CVC digits for American Express', () => {
    const now = new Date('2026-11-22T00:00:00Z');
    for (const expiry of ['12/34', '12 / 34', '1234', '12/2034']) {
      expect(parseCard({ number: '4242424242424242', expiry, cvc: '123', name: 'A' }, now)).toMatchObject({
        card: { expMonth: 12, expYear: 2034 },
      });
    }
    expect(parseCard({ number: '4242424242424242', expiry: '11/26', cvc: '123', name: 'A' }, now)).toHaveProperty(
      'card',
    );
    expect(parseCard({ number: '4242424242424242', expiry: '10/26', cvc: '123', name: 'A' }, now)).toEqual({
      errors: [{ field: 'cardExpiry', message: "Your card's expiration date is in the past." }],
    });
    expect(parseCard({ number: '378282246310005', expiry: '12/34', cvc: '123', name: 'A' }, now)).toEqual({
      errors: [{ field: 'cardCvc', message: "Your card's security code is incomplete." }],
    });
    expect(parseCard({ number: '378282246310005', expiry: '12/34', cvc: '1234', name: 'A' }, now)).toHaveProperty(
      'card',
    );
  });
});
