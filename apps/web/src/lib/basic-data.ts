import { UNAUTHORIZED_MESSAGE_MS } from '@switchyard/contracts';
import { redirect } from '@tanstack/react-router';
import { clearSession } from './auth.ts';
import { errorMessage, isUnauthorized } from './errors.ts';
import { notify } from './toast.ts';
import type { Trpc } from './trpc.ts';
import { UNAUTHORIZED_TOAST_ID } from './unauthorized.ts';

/** Queries and mutations with this meta report their own UNAUTHORIZED errors (the app-wide handler skips them). */
export const HANDLES_UNAUTHORIZED = { handlesUnauthorized: true } as const;

/** hydration.getBasicData (SPEC §7): user, meta, account, settings and modules of the signed-in session. */
export function basicDataOptions(trpc: Trpc) {
  return trpc.hydration.getBasicData.queryOptions();
}

/** The value of an account setting by key (`undefined` when absent). */
export function settingValue(items: readonly { key: string; value: unknown }[] | undefined, key: string): unknown {
  return items?.find((item) => item.key === key)?.value;
}

const BASIC_DATA_TOAST_ID = 'basic-data';

/**
 * SPEC §8, "Basic-data load fails with a server error": the server message for 10 seconds; UNAUTHORIZED forgets
 * the session and goes to /login with the way back (`href`, thrown as the router's redirect); any other error
 * returns, and the page renders. A preload (a hover) says nothing.
 */
export function onBasicDataFailure(error: unknown, { href, preload }: { href: string; preload: boolean }): void {
  if (isUnauthorized(error)) {
    clearSession();
    if (!preload) notify.error(errorMessage(error), { id: UNAUTHORIZED_TOAST_ID, duration: UNAUTHORIZED_MESSAGE_MS });
    throw redirect({ to: '/login', search: { redirect: href } });
  }
  if (!preload) notify.error(errorMessage(error), { id: BASIC_DATA_TOAST_ID, duration: UNAUTHORIZED_MESSAGE_MS });
}
