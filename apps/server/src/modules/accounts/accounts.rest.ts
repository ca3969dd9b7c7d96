import { AccountCatalogs, AccountDetails, UpdateAccountInput } from '@switchyard/contracts';
import { z } from 'zod';
import { type RestApp, restRoute } from '../../rest/route.ts';
import type { Services } from '../../services.ts';
import { getCatalogs, updateAccount } from './accounts.service.ts';

/** SPEC §7 frontend: `account/catalogs` (GET, PUT) and `account/accountUpdate`. */
export function accountsRest(app: RestApp, services: Services) {
  restRoute(app, services, {
    method: 'GET',
    url: '/account/catalogs',
    output: AccountCatalogs,
    handler: ({ actor }) => getCatalogs(services.db, actor),
  });
  restRoute(app, services, {
    method: 'PUT',
    url: '/account/catalogs',
    input: UpdateAccountInput,
    output: AccountCatalogs,
    handler: async ({ actor, input }) => {
      await updateAccount(services.db, actor, input, services);
      return getCatalogs(services.db, actor);
    },
  });
  restRoute(app, services, {
    method: 'POST',
    url: '/account/accountUpdate',
    input: UpdateAccountInput,
    output: z.object({ account: AccountDetails }),
    handler: async ({ actor, input }) => ({ account: await updateAccount(services.db, actor, input, services) }),
  });
}
