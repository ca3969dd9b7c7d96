import { createFileRoute, notFound, Outlet } from '@tanstack/react-router';
import { getAuthState, isSuperuser } from '../../../lib/auth.ts';

// SPEC §6: superusers only. Anyone else gets the not-found page, not a hint that the page exists.
export const Route = createFileRoute('/_app/admin')({
  beforeLoad: () => {
    if (!isSuperuser(getAuthState())) throw notFound();
  },
  component: Outlet,
});
