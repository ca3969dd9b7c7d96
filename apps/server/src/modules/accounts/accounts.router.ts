import {
  AccountCatalogs,
  AccountDetails,
  StockSettings,
  StockSettingsInput,
  UpdateAccountInput,
} from '@switchyard/contracts';
import { authedProcedure, router } from '../../trpc/init.ts';
import { getStockSettings, updateStockSettings } from '../settings/settings.stock.ts';
import { getCatalogs, updateAccount } from './accounts.service.ts';

export const accountRouter = router({
  catalogs: authedProcedure.output(AccountCatalogs).query(({ ctx }) => getCatalogs(ctx.services.db, ctx.actor)),
  update: authedProcedure
    .input(UpdateAccountInput)
    .output(AccountDetails)
    .mutation(({ ctx, input }) => updateAccount(ctx.services.db, ctx.actor, input, ctx.services)),
  /** The low-stock threshold (account settings): stock health on the dashboard and low-stock notifications. */
  stockSettings: authedProcedure.output(StockSettings).query(({ ctx }) => getStockSettings(ctx.services.db, ctx.actor)),
  updateStockSettings: authedProcedure
    .input(StockSettingsInput)
    .output(StockSettings)
    .mutation(({ ctx, input }) => updateStockSettings(ctx.services.db, ctx.actor, input)),
});
