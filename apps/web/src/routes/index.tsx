import { createFileRoute, redirect } from '@tanstack/react-router';

// SPEC §2: the home address goes straight to the dashboard.
export const Route = createFileRoute('/')({
  beforeLoad: () => {
    throw redirect({ to: '/dashboard', replace: true });
  },
});
