import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useCallback } from 'react';
import { useTRPC } from '../../../lib/trpc.ts';

/**
 * Goes into the app once the subscription allows it. The cached basic data still holds the status from
 * before the payment, and the app's gate would send the merchant straight back here; it is read again.
 */
export function useEnterApp() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return useCallback(
    async (replace = true) => {
      queryClient.removeQueries({ queryKey: trpc.hydration.getBasicData.queryKey() });
      await navigate({ to: '/dashboard', replace });
    },
    [navigate, queryClient, trpc],
  );
}
