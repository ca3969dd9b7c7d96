import { accountRouter } from '../modules/accounts/accounts.router.ts';
import { adminRouter } from '../modules/admin/admin.router.ts';
import { appsRouter } from '../modules/apps/apps.router.ts';
import { auditRouter } from '../modules/audit/audit.router.ts';
import { authRouter, hydrationRouter } from '../modules/auth/auth.router.ts';
import { healthRouter } from '../modules/health/health.router.ts';
import { usersRouter } from '../modules/users/users.router.ts';
import { router } from './init.ts';

export const appRouter = router({
  health: healthRouter,
  auth: authRouter,
  hydration: hydrationRouter,
  apps: appsRouter,
  account: accountRouter,
  users: usersRouter,
  admin: adminRouter,
  audit: auditRouter,
});

export type AppRouter = typeof appRouter;
