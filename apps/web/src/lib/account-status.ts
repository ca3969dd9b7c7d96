import type { AccountStatus } from '@switchyard/contracts';

export interface AccountStatusInfo {
  label: string;
  /** A Mantine colour that reads in light and dark mode alike. */
  color: string;
  /** What the status means for the merchant, in plain words. */
  explanation: string;
}

/** DESIGN §3 account statuses, as a badge and a sentence. */
export const ACCOUNT_STATUS: Record<AccountStatus, AccountStatusInfo> = {
  created: {
    label: 'Unconfirmed',
    color: 'gray',
    explanation: 'The account was created, but its e-mail address has not been confirmed yet.',
  },
  requires_payment_method: {
    label: 'No plan yet',
    color: 'yellow',
    explanation: 'The e-mail address is confirmed. A plan and a payment method are needed before the account opens.',
  },
  awaiting_payment: {
    label: 'Awaiting payment',
    color: 'orange',
    explanation: 'A plan was chosen and its first payment is on its way.',
  },
  active: {
    label: 'Active',
    color: 'teal',
    explanation: 'The account is in good standing and everything is available.',
  },
  past_due: {
    label: 'Past due',
    color: 'red',
    explanation: 'A payment has failed. The account still works while the payment is retried.',
  },
  canceled: {
    label: 'Canceled',
    color: 'dark',
    explanation: 'The subscription was canceled.',
  },
};
