import { UNAUTHORIZED_MESSAGE_MS } from '@switchyard/contracts';
import { errorMessage, isUnauthorized } from './errors.ts';
import { showToast } from './toast.ts';

export const UNAUTHORIZED_TOAST_ID = 'unauthorized';

export function loginHref(redirect: string): string {
  return `/login?${new URLSearchParams({ redirect }).toString()}`;
}

function isLoginAddress(address: string): boolean {
  return /^\/login(\/)?(\?|#|$)/.test(address);
}

export interface UnauthorizedHandlerOptions {
  /** The address to come back to after signing in: pathname + search. */
  currentAddress?: () => string;
  /**
   * Leaves for the login page. The default is a full page load: /login is served by the same app, and a
   * fresh start drops every cache that belonged to the expired session.
   */
  goTo?: (href: string) => void;
}

/**
 * SPEC §2/§8: an UNAUTHORIZED error shows its message for 10 seconds, then goes to /login with a redirect
 * back to where the user was. Several queries usually fail together, so one expiry is handled once.
 */
export function createUnauthorizedHandler({
  currentAddress = () => window.location.pathname + window.location.search,
  goTo = (href) => window.location.assign(href),
}: UnauthorizedHandlerOptions = {}): (error: unknown) => void {
  let leaving = false;
  return (error) => {
    if (leaving || !isUnauthorized(error)) return;
    leaving = true;
    showToast({
      id: UNAUTHORIZED_TOAST_ID,
      type: 'error',
      title: errorMessage(error),
      duration: UNAUTHORIZED_MESSAGE_MS,
    });
    setTimeout(() => {
      leaving = false;
      const address = currentAddress();
      // Already on the sign-in page (the app gate got there first): nothing to come back to.
      if (isLoginAddress(address)) return;
      goTo(loginHref(address));
    }, UNAUTHORIZED_MESSAGE_MS);
  };
}
