import { CHANNEL_LABELS } from '@switchyard/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute, useNavigate } from '@tanstack/react-router';
import { useEffect, useRef } from 'react';
import { errorMessage, isUnauthorized } from '../../../../lib/errors.ts';
import { notify } from '../../../../lib/toast.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { channelsRest } from '../../channels/-components/channel-api.ts';
import { CallbackProgress } from '../-components/callback-progress.tsx';
import { AnySearch, parseService, searchStrings } from '../-components/oauth-search.ts';

export const Route = createFileRoute('/_app/oauth/callback/$service')({
  validateSearch: AnySearch,
  beforeLoad: ({ params }) => {
    parseService(params.service);
  },
  component: CallbackPage,
});

/**
 * The provider sends the merchant back here. Its query goes to `process-oauth` as it came; then a platform
 * shows its outcome page, and Square goes on to its settings (or back to the list, saying what failed).
 */
function CallbackPage() {
  const provider = parseService(Route.useParams().service);
  const query = searchStrings(Route.useSearch());
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  // A query, not a mutation: the state in it is single-use, and a query is sent once however often the
  // page mounts (React's strict mode mounts it twice).
  const outcome = useQuery({
    queryKey: ['oauth', 'callback', provider, query],
    queryFn: () => channelsRest.processOauth(provider, query),
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
  const done = useRef(false);

  useEffect(() => {
    if (done.current || outcome.isPending) return;
    // An expired session is the app's to handle (sign in, then come back).
    if (outcome.isError && isUnauthorized(outcome.error)) return;
    done.current = true;
    const label = CHANNEL_LABELS[provider];
    void (async () => {
      await queryClient.invalidateQueries(trpc.channels.pathFilter());
      if (outcome.isSuccess) {
        const { channelId, name } = outcome.data;
        if (provider === 'square') {
          notify.success(`${name} is connected. Map its locations next.`);
          await navigate({ to: '/channels/$id/channel-settings', params: { id: channelId }, replace: true });
        } else {
          await navigate({
            to: '/channels/$platform/$status',
            params: { platform: provider, status: 'connected' },
            replace: true,
          });
        }
        return;
      }
      const message = errorMessage(outcome.error);
      if (provider === 'square') {
        notify.error(`${label} was not connected: ${message}`);
        await navigate({ to: '/channels', replace: true });
      } else {
        await navigate({
          to: '/channels/$platform/$status',
          params: { platform: provider, status: 'error' },
          search: { message },
          replace: true,
        });
      }
    })();
  }, [outcome, provider, navigate, queryClient, trpc]);

  return <CallbackProgress label={CHANNEL_LABELS[provider]} />;
}
