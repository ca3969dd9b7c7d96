import { BasicData, CodeInput } from '@switchyard/contracts';
import { z } from 'zod';
import { authedProcedure, publicProcedure, router } from '../../trpc/init.ts';
import { checkConfirmationCode, confirmRegistration, getBasicData } from './auth.service.ts';

export const authRouter = router({
  checkConfirmationCode: publicProcedure
    .input(CodeInput)
    .output(z.object({ valid: z.boolean() }))
    .query(({ ctx, input }) => checkConfirmationCode(ctx.services.db, input.code)),
  confirmRegistration: publicProcedure
    .input(CodeInput)
    .mutation(({ ctx, input }) => confirmRegistration(ctx.services, input.code)),
});

export const hydrationRouter = router({
  getBasicData: authedProcedure.output(BasicData).query(({ ctx }) => getBasicData(ctx.services.db, ctx.actor)),
});
