import type { LinkProps } from '@tanstack/react-router';

export interface NavDestination {
  to: NonNullable<LinkProps['to']>;
  label: string;
  description: string;
  /** Shown in the signed-in sidebar. */
  inSidebar: boolean;
}

/** Screens that exist. The sidebar and the not-found search both read this list. */
export const NAV_DESTINATIONS: readonly NavDestination[] = [
  { to: '/dashboard', label: 'Dashboard', description: 'Sales and stock metrics over time', inSidebar: true },
  { to: '/terms', label: 'Terms of Service', description: 'The terms for using Switchyard', inSidebar: false },
  { to: '/login', label: 'Sign in', description: 'Sign in to your back office', inSidebar: false },
  { to: '/register', label: 'Create an account', description: 'Register your business', inSidebar: false },
  { to: '/reset', label: 'Reset your password', description: 'Get a link to choose a new password', inSidebar: false },
];

/** Destinations whose label or description contains every word of the query, ignoring case. */
export function findDestinations(query: string): NavDestination[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return [...NAV_DESTINATIONS];
  return NAV_DESTINATIONS.filter((destination) => {
    const text = `${destination.label} ${destination.description}`.toLowerCase();
    return words.every((word) => text.includes(word));
  });
}
