import { createHash } from 'node:crypto';
import { type CardInput, cardBrand, cardOutcome } from './cards.ts';
import { invalidRequest } from './errors.ts';
import { nowSeconds, type RequestInfo, randomId, type StripeState } from './state.ts';
import type { Customer, Metadata, PaymentMethod } from './types.ts';

/** Customers and their payment methods (cards and US bank accounts typed into the hosted pages). */

export function createCustomer(
  state: StripeState,
  input: {
    email?: string | null;
    name?: string | null;
    description?: string | null;
    phone?: string | null;
    metadata?: Metadata;
    defaultPaymentMethod?: string | null;
  },
  request: RequestInfo,
): Customer {
  const customer: Customer = {
    id: state.newId('cus', 14),
    object: 'customer',
    address: null,
    balance: 0,
    created: nowSeconds(),
    currency: null,
    default_source: null,
    delinquent: false,
    description: input.description ?? null,
    discount: null,
    email: input.email ?? null,
    invoice_prefix: randomId(8)
      .toUpperCase()
      .replace(/[^A-Z0-9]/g, 'X'),
    invoice_settings: {
      custom_fields: null,
      default_payment_method: input.defaultPaymentMethod ?? null,
      footer: null,
      rendering_options: null,
    },
    livemode: false,
    metadata: input.metadata ?? {},
    name: input.name ?? null,
    next_invoice_sequence: 1,
    phone: input.phone ?? null,
    preferred_locales: [],
    shipping: null,
    tax_exempt: 'none',
    test_clock: null,
  };
  state.customers.set(customer.id, customer);
  state.emit('customer.created', customer, request);
  return customer;
}

const fingerprint = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 16);

export function createCardPaymentMethod(
  state: StripeState,
  card: CardInput,
  billing: { email: string | null },
): PaymentMethod {
  const brand = cardBrand(card.number);
  const pm: PaymentMethod = {
    id: state.newId('pm'),
    object: 'payment_method',
    allow_redisplay: 'limited',
    billing_details: {
      address: { city: null, country: 'US', line1: null, line2: null, postal_code: null, state: null },
      email: billing.email,
      name: card.name,
      phone: null,
      tax_id: null,
    },
    card: {
      brand: brand.brand,
      checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'pass' },
      country: 'US',
      display_brand: brand.brand === 'amex' ? 'american_express' : brand.brand,
      exp_month: card.expMonth,
      exp_year: card.expYear,
      fingerprint: fingerprint(card.number),
      funding: 'credit',
      generated_from: null,
      last4: card.number.slice(-4),
      networks: { available: [brand.brand], preferred: null },
      regulated_status: 'unregulated',
      three_d_secure_usage: { supported: true },
      wallet: null,
    },
    created: nowSeconds(),
    customer: null,
    livemode: false,
    metadata: {},
    type: 'card',
  };
  state.paymentMethods.set(pm.id, pm);
  state.chargeBehaviour.set(pm.id, cardOutcome(card.number).later);
  return pm;
}

export function createBankPaymentMethod(
  state: StripeState,
  bank: { name: string; routing: string; account: string },
  billing: { email: string | null },
): PaymentMethod {
  const pm: PaymentMethod = {
    id: state.newId('pm'),
    object: 'payment_method',
    allow_redisplay: 'limited',
    billing_details: {
      address: { city: null, country: 'US', line1: null, line2: null, postal_code: null, state: null },
      email: billing.email,
      name: bank.name,
      phone: null,
      tax_id: null,
    },
    us_bank_account: {
      account_holder_type: 'individual',
      account_type: 'checking',
      bank_name: 'STRIPE TEST BANK',
      financial_connections_account: null,
      fingerprint: fingerprint(`${bank.routing}:${bank.account}`),
      last4: bank.account.slice(-4),
      networks: { preferred: 'ach', supported: ['ach'] },
      routing_number: bank.routing,
      status_details: null,
    },
    created: nowSeconds(),
    customer: null,
    livemode: false,
    metadata: {},
    type: 'us_bank_account',
  };
  state.paymentMethods.set(pm.id, pm);
  state.chargeBehaviour.set(pm.id, 'succeeds');
  return pm;
}

export function attachPaymentMethod(state: StripeState, pm: PaymentMethod, customer: Customer, request: RequestInfo) {
  if (pm.customer === customer.id) return;
  if (pm.customer) {
    throw invalidRequest(
      'The payment method you provided has already been attached to a customer.',
      'payment_method',
      'payment_method_unexpected_state',
    );
  }
  pm.customer = customer.id;
  state.emit('payment_method.attached', pm, request);
}
