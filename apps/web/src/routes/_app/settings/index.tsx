import { createFileRoute, redirect } from '@tanstack/react-router';

// SPEC §2: /settings/ is the profile page.
export const Route = createFileRoute('/_app/settings/')({
  beforeLoad: () => {
    throw redirect({ to: '/settings/profile', replace: true });
  },
});
