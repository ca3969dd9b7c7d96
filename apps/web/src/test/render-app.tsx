import { createMemoryHistory } from '@tanstack/react-router';
import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App, createAppServices } from '../app.tsx';
import { type ProcedureHandler, trpcFetch } from './trpc-stub.ts';

export interface RenderAppOptions {
  handlers?: Record<string, ProcedureHandler>;
  goToLogin?: (href: string) => void;
  /** For fake timers: user-event must advance them too. */
  advanceTimers?: (ms: number) => unknown;
}

/** The whole app (providers, router, real tRPC client) at `path`, with a stubbed network edge. */
export async function renderApp(path: string, { handlers = {}, goToLogin, advanceTimers }: RenderAppOptions = {}) {
  const fetch = trpcFetch({ 'health.checkBuildId': () => ({ match: true }), ...handlers });
  const history = createMemoryHistory({ initialEntries: [path] });
  const services = createAppServices({ history, fetch, ...(goToLogin ? { goToLogin } : {}) });
  const user = userEvent.setup(advanceTimers ? { advanceTimers } : {});
  const view = render(<App services={services} env="test" />);
  await services.router.load();
  return { ...view, services, fetch, user, router: services.router };
}
