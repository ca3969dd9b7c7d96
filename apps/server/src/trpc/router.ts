import { appsRouter } from '../modules/apps/apps.router.ts';
import { authRouter, hydrationRouter } from '../modules/auth/auth.router.ts';
import { healthRouter } from '../modules/health/health.router.ts';
import { router } from './init.ts';

export const appRouter = router({
  health: healthRouter,
  auth: authRouter,
  hydration: hydrationRouter,
  apps: appsRouter,
});

export type AppRouter = typeof appRouter;
