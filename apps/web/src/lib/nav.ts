import type { LinkProps } from '@tanstack/react-router';
import { type AuthState, isSuperAdmin, isSuperuser } from './auth.ts';

export interface NavDestination {
  to: NonNullable<LinkProps['to']>;
  label: string;
  description: string;
  /** Shown in the signed-in sidebar. */
  inSidebar: boolean;
  /** Only for superusers or super admins; everyone else is not told the screen exists. */
  access?: 'superuser' | 'superAdmin';
}

/** Screens that exist. The sidebar and the not-found search both read this list. */
export const NAV_DESTINATIONS: readonly NavDestination[] = [
  { to: '/dashboard', label: 'Dashboard', description: 'Sales and stock metrics over time', inSidebar: true },
  {
    to: '/orders',
    label: 'Orders',
    description: "Every channel's orders: status, lines, stock allocations, comments and cancelling",
    inSidebar: true,
  },
  {
    to: '/returns',
    label: 'Returns',
    description: 'Returns and refunds from every channel and from orders: restocked at their return store',
    inSidebar: true,
  },
  {
    to: '/fulfillment',
    label: 'Fulfillment',
    description: "Each store's queue: pick, pack, picking lists, pickup and curbside",
    inSidebar: true,
  },
  {
    to: '/channels',
    label: 'Channels',
    description: 'Connect Shopify, BigCommerce and Square POS; channel settings',
    inSidebar: true,
  },
  {
    to: '/locations',
    label: 'Locations',
    description: 'Your stores and warehouses: store ids, shipping, pickup and routing priority',
    inSidebar: true,
  },
  {
    to: '/order-routing',
    label: 'Order routing',
    description: 'Rules that pick the store for each order line (nearest store, no splits), dry runs and replays',
    inSidebar: true,
  },
  {
    to: '/products',
    label: 'Products',
    description: 'Your catalog per channel: products, variants, stock per location and sync status',
    inSidebar: true,
  },
  {
    to: '/dynamic-buffers',
    label: 'Dynamic buffers',
    description: 'Stock held back from a channel per SKU and location, against overselling',
    inSidebar: true,
  },
  {
    to: '/syncs',
    label: 'Syncs',
    description: 'Sync runs with your channels: progress, failed items and retries',
    inSidebar: true,
  },
  { to: '/settings', label: 'Settings', description: 'Your profile, business details and API keys', inSidebar: true },
  {
    to: '/help',
    label: 'Help',
    description: 'How Switchyard works: getting started, stock numbers, statuses, shortcuts, providers and support',
    inSidebar: true,
  },
  {
    to: '/notifications',
    label: 'Notifications',
    description: 'Failed syncs, flagged and waiting orders, low stock, disconnected channels; e-mail digest settings',
    inSidebar: false,
  },
  {
    to: '/admin/accounts',
    label: 'Admin',
    description: 'All accounts, and acting as one of them',
    inSidebar: true,
    access: 'superuser',
  },
  {
    to: '/admin/plans',
    label: 'Plans',
    description: 'Subscription plans: prices, limits and features',
    inSidebar: true,
    access: 'superAdmin',
  },
  {
    to: '/admin/system',
    label: 'System settings',
    description: 'System settings, modules and superusers',
    inSidebar: false,
    access: 'superAdmin',
  },
  {
    to: '/subscription/plans',
    label: 'Plans and pricing',
    description: 'Subscription plans, their prices and limits',
    inSidebar: false,
  },
  { to: '/terms', label: 'Terms of Service', description: 'The terms for using Switchyard', inSidebar: false },
  { to: '/login', label: 'Sign in', description: 'Sign in to your back office', inSidebar: false },
  { to: '/register', label: 'Create an account', description: 'Register your business', inSidebar: false },
  { to: '/reset', label: 'Reset your password', description: 'Get a link to choose a new password', inSidebar: false },
];

type Access = Pick<AuthState, 'authorizationLevel' | 'superUserRole'>;

const NO_ACCESS: Access = { authorizationLevel: null, superUserRole: null };

/** Whether a destination is for this user: superuser screens only for superusers, and so on. */
export function canSee(destination: NavDestination, auth: Access): boolean {
  if (destination.access === 'superuser') return isSuperuser(auth);
  if (destination.access === 'superAdmin') return isSuperuser(auth) && isSuperAdmin(auth);
  return true;
}

/** Destinations whose label or description contains every word of the query, ignoring case. */
export function findDestinations(query: string, auth: Access = NO_ACCESS): NavDestination[] {
  const visible = NAV_DESTINATIONS.filter((destination) => canSee(destination, auth));
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return visible;
  return visible.filter((destination) => {
    const text = `${destination.label} ${destination.description}`.toLowerCase();
    return words.every((word) => text.includes(word));
  });
}
