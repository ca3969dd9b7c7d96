import type { ChargeBehaviour } from './state.ts';

/**
 * Stripe's test cards and bank accounts (https://docs.stripe.com/testing), and the checks Checkout makes
 * on what the customer types, with Stripe's own messages.
 */

export interface CardOutcome {
  /** What happens when the card is first used (at checkout). */
  first: 'succeeds' | 'declines' | 'requires_authentication' | 'requires_authentication_once';
  /** What happens to charges made later without the customer (renewals). */
  later: ChargeBehaviour;
  decline?: Decline;
}

export interface Decline {
  code: string;
  decline_code?: string;
  message: string;
}

export const DECLINES = {
  generic: { code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' },
  insufficientFunds: {
    code: 'card_declined',
    decline_code: 'insufficient_funds',
    message: 'Your card has insufficient funds.',
  },
  lostCard: { code: 'card_declined', decline_code: 'lost_card', message: 'Your card was declined.' },
  stolenCard: { code: 'card_declined', decline_code: 'stolen_card', message: 'Your card was declined.' },
  expiredCard: { code: 'expired_card', decline_code: 'expired_card', message: 'Your card has expired.' },
  incorrectCvc: {
    code: 'incorrect_cvc',
    decline_code: 'incorrect_cvc',
    message: "Your card's security code is incorrect.",
  },
  processingError: {
    code: 'processing_error',
    decline_code: 'processing_error',
    message: 'An error occurred while processing your card. Try again in a little bit.',
  },
  liveCard: {
    code: 'card_declined',
    decline_code: 'test_mode_live_card',
    message: 'Your card was declined. Your request was in test mode, but used a non test (live) card.',
  },
  authenticationRequired: {
    code: 'authentication_required',
    decline_code: 'authentication_required',
    message: 'Your card was declined. This transaction requires authentication.',
  },
  authenticationFailed: {
    code: 'payment_intent_authentication_failure',
    message:
      'We are unable to authenticate your payment method. Please choose a different payment method and try again.',
  },
} satisfies Record<string, Decline>;

const TEST_CARDS: Record<string, CardOutcome> = {
  '4242424242424242': { first: 'succeeds', later: 'succeeds' },
  '4000056655665556': { first: 'succeeds', later: 'succeeds' },
  '5555555555554444': { first: 'succeeds', later: 'succeeds' },
  '2223003122003222': { first: 'succeeds', later: 'succeeds' },
  '5200828282828210': { first: 'succeeds', later: 'succeeds' },
  '378282246310005': { first: 'succeeds', later: 'succeeds' },
  '371449635398431': { first: 'succeeds', later: 'succeeds' },
  '6011111111111117': { first: 'succeeds', later: 'succeeds' },
  '4000000000000002': { first: 'declines', later: 'declines_later', decline: DECLINES.generic },
  '4000000000009995': { first: 'declines', later: 'declines_later', decline: DECLINES.insufficientFunds },
  '4000000000009987': { first: 'declines', later: 'declines_later', decline: DECLINES.lostCard },
  '4000000000009979': { first: 'declines', later: 'declines_later', decline: DECLINES.stolenCard },
  '4000000000000069': { first: 'declines', later: 'declines_later', decline: DECLINES.expiredCard },
  '4000000000000127': { first: 'declines', later: 'declines_later', decline: DECLINES.incorrectCvc },
  '4000000000000119': { first: 'declines', later: 'declines_later', decline: DECLINES.processingError },
  // Attaches and pays at checkout; every later charge is declined.
  '4000000000000341': { first: 'succeeds', later: 'declines_later', decline: DECLINES.generic },
  // 3D Secure required on every payment, including renewals (which then fail off-session).
  '4000002760003184': { first: 'requires_authentication', later: 'requires_authentication' },
  // 3D Secure on the first payment only; later off-session charges succeed.
  '4000002500003155': { first: 'requires_authentication_once', later: 'succeeds' },
};

export function cardOutcome(number: string): CardOutcome {
  return TEST_CARDS[number] ?? { first: 'declines', later: 'declines_later', decline: DECLINES.liveCard };
}

export function cardBrand(number: string): { brand: string; display: string; cvcLength: number; lengths: number[] } {
  if (/^3[47]/.test(number)) return { brand: 'amex', display: 'American Express', cvcLength: 4, lengths: [15] };
  if (/^(5[1-5]|2[2-7])/.test(number))
    return { brand: 'mastercard', display: 'Mastercard', cvcLength: 3, lengths: [16] };
  if (/^6(011|5)/.test(number)) return { brand: 'discover', display: 'Discover', cvcLength: 3, lengths: [16] };
  if (/^4/.test(number)) return { brand: 'visa', display: 'Visa', cvcLength: 3, lengths: [16] };
  return { brand: 'unknown', display: 'Card', cvcLength: 3, lengths: [16] };
}

export function luhnValid(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let digit = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

export interface CardInput {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
  name: string;
}

/** A form field's error, in Checkout's words. */
export interface FieldError {
  field:
    | 'email'
    | 'cardNumber'
    | 'cardExpiry'
    | 'cardCvc'
    | 'cardName'
    | 'accountName'
    | 'routingNumber'
    | 'accountNumber';
  message: string;
}

/**
 * Checks what was typed into the card form: the number (complete, Luhn), the expiry (MM / YY, not in the
 * past), the CVC (3 digits, 4 for American Express) and the cardholder's name.
 */
export function parseCard(
  form: { number?: string; expiry?: string; cvc?: string; name?: string },
  now = new Date(),
): { card: CardInput } | { errors: FieldError[] } {
  const errors: FieldError[] = [];
  const number = (form.number ?? '').replace(/[\s-]/g, '');
  const brand = cardBrand(number);
  if (!number) errors.push({ field: 'cardNumber', message: 'Your card number is incomplete.' });
  else if (!/^\d+$/.test(number)) errors.push({ field: 'cardNumber', message: 'Your card number is invalid.' });
  else if (number.length < Math.min(...brand.lengths)) {
    errors.push({ field: 'cardNumber', message: 'Your card number is incomplete.' });
  } else if (number.length > 19 || !luhnValid(number)) {
    errors.push({ field: 'cardNumber', message: 'Your card number is incorrect.' });
  }

  let expMonth = 0;
  let expYear = 0;
  const expiry = (form.expiry ?? '').replace(/\s/g, '');
  const m = /^(\d{1,2})\/?(\d{2}|\d{4})$/.exec(expiry);
  if (!expiry) errors.push({ field: 'cardExpiry', message: "Your card's expiration date is incomplete." });
  else if (!m) errors.push({ field: 'cardExpiry', message: "Your card's expiration date is incomplete." });
  else {
    expMonth = Number(m[1]);
    expYear = Number(m[2]);
    if (expYear < 100) expYear += 2000;
    const thisYear = now.getUTCFullYear();
    const thisMonth = now.getUTCMonth() + 1;
    if (expMonth < 1 || expMonth > 12) {
      errors.push({ field: 'cardExpiry', message: "Your card's expiration month is invalid." });
    } else if (expYear < thisYear) {
      errors.push({ field: 'cardExpiry', message: "Your card's expiration year is in the past." });
    } else if (expYear === thisYear && expMonth < thisMonth) {
      errors.push({ field: 'cardExpiry', message: "Your card's expiration date is in the past." });
    } else if (expYear > thisYear + 50) {
      errors.push({ field: 'cardExpiry', message: "Your card's expiration year is invalid." });
    }
  }

  const cvc = (form.cvc ?? '').trim();
  if (!cvc || (/^\d+$/.test(cvc) && cvc.length < brand.cvcLength)) {
    errors.push({ field: 'cardCvc', message: "Your card's security code is incomplete." });
  } else if (!/^\d+$/.test(cvc) || cvc.length > brand.cvcLength) {
    errors.push({ field: 'cardCvc', message: "Your card's security code is invalid." });
  }

  const name = (form.name ?? '').trim();
  if (!name) errors.push({ field: 'cardName', message: 'Enter the name on your card.' });

  if (errors.length) return { errors };
  return { card: { number, expMonth, expYear, cvc, name } };
}

/** Stripe's test bank accounts for ACH Direct Debit (routing number 110000000). */
export function bankOutcome(accountNumber: string): { settles: 'succeeds' | 'fails'; failure?: Decline } {
  switch (accountNumber) {
    case '000111111116':
      return {
        settles: 'fails',
        failure: {
          code: 'payment_method_not_available',
          decline_code: 'no_account',
          message: 'The customer’s bank account could not be located.',
        },
      };
    case '000111111113':
      return {
        settles: 'fails',
        failure: {
          code: 'payment_method_not_available',
          decline_code: 'account_closed',
          message: 'The customer’s bank account has been closed.',
        },
      };
    case '000222222227':
      return {
        settles: 'fails',
        failure: {
          code: 'insufficient_funds',
          decline_code: 'insufficient_funds',
          message: 'The customer’s account has insufficient funds to cover this payment.',
        },
      };
    default:
      return { settles: 'succeeds' };
  }
}

/** ABA routing number checksum (3-7-1 weights). */
export function routingValid(routing: string): boolean {
  if (!/^\d{9}$/.test(routing)) return false;
  const d = routing.split('').map(Number) as number[];
  const sum =
    3 * ((d[0] ?? 0) + (d[3] ?? 0) + (d[6] ?? 0)) +
    7 * ((d[1] ?? 0) + (d[4] ?? 0) + (d[7] ?? 0)) +
    ((d[2] ?? 0) + (d[5] ?? 0) + (d[8] ?? 0));
  return sum % 10 === 0;
}

export function parseBankAccount(form: {
  accountName?: string;
  routingNumber?: string;
  accountNumber?: string;
}): { bank: { name: string; routing: string; account: string } } | { errors: FieldError[] } {
  const errors: FieldError[] = [];
  const name = (form.accountName ?? '').trim();
  const routing = (form.routingNumber ?? '').replace(/\s/g, '');
  const account = (form.accountNumber ?? '').replace(/\s/g, '');
  if (!name) errors.push({ field: 'accountName', message: 'Enter the account holder’s name.' });
  if (!routing) errors.push({ field: 'routingNumber', message: 'Enter a routing number.' });
  else if (!routingValid(routing)) errors.push({ field: 'routingNumber', message: 'Your routing number is invalid.' });
  if (!account) errors.push({ field: 'accountNumber', message: 'Enter an account number.' });
  else if (!/^\d{4,17}$/.test(account))
    errors.push({ field: 'accountNumber', message: 'Your account number is invalid.' });
  if (errors.length) return { errors };
  return { bank: { name, routing, account } };
}
