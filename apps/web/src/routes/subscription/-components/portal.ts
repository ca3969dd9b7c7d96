import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { browserLocation } from '../../../lib/browser-location.ts';
import { useTRPC } from '../../../lib/trpc.ts';

/**
 * billing.openPortal: the provider's billing portal (payment method, invoices), then back to `returnPath`.
 * `leaving` stays true while the browser goes there, so the button keeps its spinner.
 */
export function useOpenPortal(returnPath: string) {
  const trpc = useTRPC();
  const [leaving, setLeaving] = useState(false);
  const portal = useMutation(
    trpc.billing.openPortal.mutationOptions({
      onSuccess: ({ url }) => {
        setLeaving(true);
        browserLocation.assign(url);
      },
    }),
  );
  return {
    open: () => portal.mutate({ returnPath }),
    pending: portal.isPending || leaving,
    error: portal.isError ? portal.error : null,
  };
}
