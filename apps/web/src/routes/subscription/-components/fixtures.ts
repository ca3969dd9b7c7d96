import type { Plan, SubscriptionStatus } from '@switchyard/contracts';

/** Plans and statuses as the billing procedures answer them, for the web tests. */
export const STARTER: Plan = {
  id: 'plan-starter',
  code: 'starter',
  name: 'Starter',
  description: 'For a single shop and store.',
  monthlyPrice: 2900,
  yearlyPrice: 29000,
  currency: 'usd',
  limits: { channels: 2, locations: 1, ordersPerMonth: 500, users: 2 },
  features: ['Catalog and stock sync', 'E-mail support'],
  public: true,
  active: true,
  sortOrder: 10,
};

export const GROWTH: Plan = {
  id: 'plan-growth',
  code: 'growth',
  name: 'Growth',
  description: 'Several channels and locations.',
  monthlyPrice: 9900,
  yearlyPrice: 99000,
  currency: 'usd',
  limits: { channels: 5, locations: 5, ordersPerMonth: 5000, users: 10 },
  features: ['Order routing', 'Dynamic buffers'],
  public: true,
  active: true,
  sortOrder: 20,
};

export const PARTNER: Plan = {
  id: 'plan-partner',
  code: 'partner',
  name: 'Partner',
  description: 'Agreed with our sales team.',
  monthlyPrice: 50000,
  yearlyPrice: 500000,
  currency: 'usd',
  limits: { channels: null, locations: null, ordersPerMonth: null, users: null },
  features: [],
  public: false,
  active: true,
  sortOrder: 30,
};

export function status(overrides: Partial<SubscriptionStatus> = {}): SubscriptionStatus {
  return {
    accountStatus: 'requires_payment_method',
    subscription: null,
    checkout: null,
    lastPaymentError: null,
    readOnly: false,
    ...overrides,
  };
}

export function activeStatus(overrides: Partial<SubscriptionStatus> = {}): SubscriptionStatus {
  return status({
    accountStatus: 'active',
    subscription: {
      planId: STARTER.id,
      planName: STARTER.name,
      interval: 'month',
      status: 'active',
      currentPeriodEnd: new Date('2026-04-04T12:00:00Z'),
      cancelAtPeriodEnd: false,
      graceEndsAt: null,
    },
    checkout: { status: 'complete', paymentStatus: 'paid' },
    ...overrides,
  });
}
