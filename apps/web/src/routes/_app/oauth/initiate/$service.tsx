import { useQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { useEffect } from 'react';
import { browserLocation } from '../../../../lib/browser-location.ts';
import { useTRPC } from '../../../../lib/trpc.ts';
import { AuthorizationStep } from '../-components/authorization-step.tsx';
import { AnySearch, oauthProperties, parseService } from '../-components/oauth-search.ts';

export const Route = createFileRoute('/_app/oauth/initiate/$service')({
  validateSearch: AnySearch,
  beforeLoad: ({ params }) => {
    parseService(params.service);
  },
  component: InitiatePage,
});

/** Asks for the provider's consent URL (channels.getOauthUrl) and goes there. */
function InitiatePage() {
  const provider = parseService(Route.useParams().service);
  const properties = oauthProperties(Route.useSearch());
  const trpc = useTRPC();
  const authorization = useQuery({
    ...trpc.channels.getOauthUrl.queryOptions({ provider, properties }),
    // Each answer carries a fresh single-use state: never reuse one, never ask again behind the merchant's back.
    staleTime: 0,
    gcTime: 0,
    retry: false,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
  const url = authorization.data?.url;

  useEffect(() => {
    if (url) browserLocation.assign(url);
  }, [url]);

  return <AuthorizationStep provider={provider} query={authorization} />;
}
