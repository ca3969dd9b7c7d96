import {
  ActAsInput,
  ActAsOutput,
  AdminAccount,
  AdminAccountList,
  AdminAccountsListInput,
  AdminUser,
  IdInput,
  SetModuleInput,
  SetSuperuserInput,
  SetSystemSettingInput,
} from '@switchyard/contracts';
import { router, superAdminProcedure, superuserProcedure } from '../../trpc/init.ts';
import {
  actAs,
  endActing,
  getAnyAccount,
  listAllAccounts,
  setModule,
  setSuperuser,
  setSystemSetting,
} from './admin.service.ts';

export const adminRouter = router({
  accounts: router({
    list: superuserProcedure
      .input(AdminAccountsListInput)
      .output(AdminAccountList)
      .query(({ ctx, input }) => listAllAccounts(ctx.services.db, input)),
    get: superuserProcedure
      .input(IdInput)
      .output(AdminAccount)
      .query(({ ctx, input }) => getAnyAccount(ctx.services.db, input.id)),
  }),
  actAs: superuserProcedure
    .input(ActAsInput)
    .output(ActAsOutput)
    .mutation(({ ctx, input }) => actAs(ctx.services, ctx.actor, input)),
  /** Leaves the account acted in: the acting token stops working. */
  endActing: superuserProcedure.mutation(({ ctx }) => endActing(ctx.services.db, ctx.actor)),
  systemSettings: router({
    set: superAdminProcedure
      .input(SetSystemSettingInput)
      .mutation(({ ctx, input }) => setSystemSetting(ctx.services.db, ctx.actor, input)),
  }),
  modules: router({
    set: superAdminProcedure
      .input(SetModuleInput)
      .mutation(({ ctx, input }) => setModule(ctx.services.db, ctx.actor, input)),
  }),
  users: router({
    setSuperuser: superAdminProcedure
      .input(SetSuperuserInput)
      .output(AdminUser)
      .mutation(({ ctx, input }) => setSuperuser(ctx.services.db, ctx.actor, input)),
  }),
});
