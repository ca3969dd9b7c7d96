import { PlanInput } from '@switchyard/contracts';
import { describe, expect, it } from 'vitest';
import { deriveAccountStatus } from './billing.mirror.ts';
import { InvalidSignature, StripeBillingProvider, stripeClient } from './billing.provider.ts';
import { isReadOnly } from './billing.service.ts';
import { DEFAULT_PLANS } from './plans.service.ts';

const DAY = 24 * 3600 * 1000;

describe('the account status billing implies', () => {
  const none = undefined;
  const complete = (paymentStatus: 'paid' | 'unpaid', paymentError: string | null = null) =>
    ({ status: 'complete', paymentStatus, paymentError }) as const;

  it('follows the subscription once there is one that bills', () => {
    expect(deriveAccountStatus({ status: 'active' }, complete('paid'))).toBe('active');
    expect(deriveAccountStatus({ status: 'trialing' }, none)).toBe('active');
    expect(deriveAccountStatus({ status: 'past_due' }, none)).toBe('past_due');
    expect(deriveAccountStatus({ status: 'unpaid' }, none)).toBe('past_due');
    expect(deriveAccountStatus({ status: 'canceled' }, none)).toBe('canceled');
  });

  it('waits for a completed checkout whose payment has not settled, and goes back when it fails', () => {
    expect(deriveAccountStatus({ status: 'incomplete' }, complete('unpaid'))).toBe('awaiting_payment');
    expect(deriveAccountStatus({ status: 'incomplete' }, complete('unpaid', 'The bank refused.'))).toBe(
      'requires_payment_method',
    );
    expect(deriveAccountStatus({ status: 'incomplete_expired' }, complete('unpaid'))).toBe('requires_payment_method');
    expect(deriveAccountStatus(none, { status: 'open', paymentStatus: 'unpaid', paymentError: null })).toBe(
      'requires_payment_method',
    );
  });

  it('leaves an account with no billing history alone', () => {
    expect(deriveAccountStatus(none, none)).toBeUndefined();
  });
});

describe('read-only past due', () => {
  const now = new Date('2026-03-10T12:00:00Z');
  it('starts when the grace period after the payment failed is over', () => {
    const sub = (daysAgo: number) => ({ pastDueSince: new Date(now.getTime() - daysAgo * DAY) }) as never;
    expect(isReadOnly('past_due', sub(6.9), now)).toBe(false);
    expect(isReadOnly('past_due', sub(7), now)).toBe(true);
    expect(isReadOnly('active', sub(30), now)).toBe(false);
    expect(isReadOnly('past_due', undefined, now)).toBe(false);
  });
});

describe('default plans', () => {
  it('are valid plan input, priced in minor units, with unique codes', () => {
    for (const plan of DEFAULT_PLANS) expect(PlanInput.safeParse(plan).success).toBe(true);
    expect(new Set(DEFAULT_PLANS.map((p) => p.code)).size).toBe(DEFAULT_PLANS.length);
    expect(DEFAULT_PLANS.filter((p) => p.public).map((p) => p.code)).toEqual(['starter', 'growth', 'scale']);
  });
});

describe('Stripe webhook verification', () => {
  const endpoints = {
    mode: 'sandbox' as const,
    secretKey: 'sk_test_unit',
    webhookSecret: 'whsec_unit',
    host: '127.0.0.1',
    port: 9,
    protocol: 'http' as const,
  };
  const provider = new StripeBillingProvider(endpoints);
  const payload = JSON.stringify({
    id: 'evt_1',
    object: 'event',
    type: 'invoice.paid',
    created: 1_700_000_000,
    data: { object: { id: 'in_1', object: 'invoice' } },
  });
  const header = (secret: string, body = payload) =>
    stripeClient(endpoints).webhooks.generateTestHeaderString({ payload: body, secret });

  it('reads an event signed with the endpoint secret', () => {
    const event = provider.parseWebhook(Buffer.from(payload), header('whsec_unit'));
    expect(event).toMatchObject({ id: 'evt_1', type: 'invoice.paid', object: { id: 'in_1' } });
    expect(event.created.toISOString()).toBe('2023-11-14T22:13:20.000Z');
  });

  it('refuses another secret, a changed body and a missing header', () => {
    expect(() => provider.parseWebhook(Buffer.from(payload), header('whsec_other'))).toThrow(InvalidSignature);
    const changed = payload.replace('in_1', 'in_2');
    expect(() => provider.parseWebhook(Buffer.from(changed), header('whsec_unit'))).toThrow(InvalidSignature);
    expect(() => provider.parseWebhook(Buffer.from(payload), undefined)).toThrow(InvalidSignature);
  });
});
