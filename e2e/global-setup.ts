import { execFileSync } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import { repoRoot, startServer } from './server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    /** A server whose build id differs from the web build's: the client must say it is outdated. */
    outdatedUrl: string;
    /** A confirmed, active super admin on the baseUrl server, made with `npm run admin:create`. */
    admin: { email: string; password: string };
    /** The provider sandbox the baseUrl server started in process (its Stripe control API, say). */
    sandboxUrl: string;
  }
}

export default async function setup(project: TestProject) {
  if (!process.env.E2E_SKIP_BUILD) {
    // NODE_ENV as `npm start` builds it: vitest sets it to "test", and Vite would then bundle React's development build.
    execFileSync('npm', ['run', 'build', '-w', '@switchyard/web'], {
      cwd: repoRoot,
      stdio: 'inherit',
      env: { ...process.env, NODE_ENV: 'production' },
    });
  }
  const admin = { email: 'ops@switchyard.test', password: 'e2e admin password 1' };
  const [current, outdated] = await Promise.all([
    startServer({}, { admin }),
    startServer({ BUILD_ID: 'a-newer-deploy' }),
  ]);
  project.provide('baseUrl', current.url);
  project.provide('admin', admin);
  project.provide('sandboxUrl', current.sandbox ?? '');
  project.provide('outdatedUrl', outdated.url);
  return async () => {
    await Promise.all([current.stop(), outdated.stop()]);
  };
}
