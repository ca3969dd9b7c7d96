import { createFileRoute, redirect } from '@tanstack/react-router';

/** A channel's address on its own opens its channel settings. */
export const Route = createFileRoute('/_app/channels/$id/')({
  beforeLoad: ({ params }) => {
    throw redirect({ to: '/channels/$id/channel-settings', params, replace: true });
  },
});
