import { CheckBuildIdInput, CheckBuildIdOutput } from '@switchyard/contracts';
import { publicProcedure, router } from '../../trpc/init.ts';
import { checkBuildId } from './health.service.ts';

export const healthRouter = router({
  checkBuildId: publicProcedure
    .input(CheckBuildIdInput)
    .output(CheckBuildIdOutput)
    .query(({ ctx, input }) => checkBuildId(ctx.services.buildId, input)),
});
