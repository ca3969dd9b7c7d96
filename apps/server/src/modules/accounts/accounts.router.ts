import { AccountCatalogs, AccountDetails, UpdateAccountInput } from '@switchyard/contracts';
import { authedProcedure, router } from '../../trpc/init.ts';
import { getCatalogs, updateAccount } from './accounts.service.ts';

export const accountRouter = router({
  catalogs: authedProcedure.output(AccountCatalogs).query(({ ctx }) => getCatalogs(ctx.services.db, ctx.actor)),
  update: authedProcedure
    .input(UpdateAccountInput)
    .output(AccountDetails)
    .mutation(({ ctx, input }) => updateAccount(ctx.services.db, ctx.actor, input)),
});
