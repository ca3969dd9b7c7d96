import type { Trpc } from './trpc.ts';

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
