import { createMemoryHistory } from '@tanstack/react-router';
import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App, createAppServices } from '../app.tsx';
import { type RestHandler, stubRest } from './rest-stub.ts';
import { fakeToken, signedInHandlers, storeSession } from './session.ts';
import { type ProcedureHandler, trpcFetch } from './trpc-stub.ts';

export interface RenderAppOptions {
  handlers?: Record<string, ProcedureHandler>;
  /** REST answers by `'METHOD /api/…/path'`; anything else answers 404. */
  rest?: Record<string, RestHandler>;
  /** Starts signed in (a valid token and user in storage) with basic data for the given account. */
  signedIn?: boolean | Parameters<typeof signedInHandlers>[0];
  goToLogin?: (href: string) => void;
  /** For fake timers: user-event must advance them too. */
  advanceTimers?: (ms: number) => unknown;
}

/** The whole app (providers, router, real tRPC and REST clients) at `path`, with a stubbed network edge. */
export async function renderApp(
  path: string,
  { handlers = {}, rest = {}, signedIn, goToLogin, advanceTimers }: RenderAppOptions = {},
) {
  // The token carries the same level and role as the basic data, as the server's tokens do.
  if (signedIn) storeSession(fakeToken(signedIn === true ? {} : { ...signedIn.meta }));
  const session = signedIn ? signedInHandlers(signedIn === true ? {} : signedIn) : {};
  const fetch = trpcFetch({ 'health.checkBuildId': () => ({ match: true }), ...session, ...handlers });
  const restStub = stubRest(rest);
  const history = createMemoryHistory({ initialEntries: [path] });
  const services = createAppServices({ history, fetch, ...(goToLogin ? { goToLogin } : {}) });
  const user = userEvent.setup(advanceTimers ? { advanceTimers } : {});
  const view = render(<App services={services} env="test" />);
  await services.router.load();
  return { ...view, services, fetch, rest: restStub, user, router: services.router };
}
