import type { SubscriptionStatus } from '@switchyard/contracts';

/** Subscription states in which the account already pays: plans change in settings, not through checkout. */
const SUBSCRIBED = new Set<string>(['active', 'trialing', 'past_due']);

export function hasLiveSubscription(status: SubscriptionStatus | undefined): boolean {
  return Boolean(status?.subscription && SUBSCRIBED.has(status.subscription.status));
}

/** The account may use the app: the gate lets these statuses in. */
export function canEnterApp(status: SubscriptionStatus): boolean {
  return status.accountStatus === 'active' || status.accountStatus === 'past_due';
}

/** How often the waiting screens ask again. */
export const STATUS_POLL_MS = 3000;
