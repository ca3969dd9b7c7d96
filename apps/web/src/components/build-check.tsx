import { BUILD_CHECK_INTERVAL_MS, MESSAGES } from '@switchyard/contracts';
import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { BUILD_ID } from '../lib/build-id.ts';
import { dismissToast, showToast } from '../lib/toast.ts';
import { useTRPC } from '../lib/trpc.ts';

// Fixed ids: a later check updates the toast already on screen instead of stacking a copy.
export const OUTDATED_BUILD_TOAST_ID = 'outdated-build';
export const BUILD_CHECK_FAILED_TOAST_ID = 'build-check-failed';

export interface BuildCheckProps {
  buildId?: string;
  /** What the Update button does; a full reload fetches the new build. */
  onUpdate?: () => void;
}

/**
 * SPEC §4/§8: asks the server at start-up and every 10 minutes whether it still serves this build.
 * A mismatch leaves a notice that only a reload removes; a failed check says so, and clears once a
 * later check gets through.
 */
const reloadPage = () => window.location.reload();

export function BuildCheck({ buildId = BUILD_ID, onUpdate = reloadPage }: BuildCheckProps) {
  const trpc = useTRPC();
  const { data, isError } = useQuery({
    ...trpc.health.checkBuildId.queryOptions({ buildId }),
    staleTime: BUILD_CHECK_INTERVAL_MS,
    refetchInterval: BUILD_CHECK_INTERVAL_MS,
    refetchOnWindowFocus: false,
  });
  const isOutdated = data?.match === false;

  useEffect(() => {
    if (!isOutdated) return;
    showToast({
      id: OUTDATED_BUILD_TOAST_ID,
      type: 'info',
      title: MESSAGES.outdatedBuild,
      duration: Number.POSITIVE_INFINITY,
      dismissible: false,
      action: {
        label: 'Update',
        onClick: (event) => {
          event.preventDefault(); // stay on screen until the page has reloaded
          onUpdate();
        },
      },
    });
  }, [isOutdated, onUpdate]);

  useEffect(() => {
    if (!isError) {
      dismissToast(BUILD_CHECK_FAILED_TOAST_ID);
      return;
    }
    showToast({
      id: BUILD_CHECK_FAILED_TOAST_ID,
      type: 'error',
      title: MESSAGES.buildCheckFailed,
      duration: Number.POSITIVE_INFINITY,
      dismissible: false,
    });
  }, [isError]);

  return null;
}
