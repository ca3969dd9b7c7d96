import { AuditEntry, AuditList, IdInput, PageInput } from '@switchyard/contracts';
import { authedProcedure, router } from '../../trpc/init.ts';
import { getAuditEntry, listAudit } from './audit.service.ts';

export const auditRouter = router({
  list: authedProcedure
    .input(PageInput.optional())
    .output(AuditList)
    .query(({ ctx, input }) => listAudit(ctx.services.db, ctx.actor, input ?? PageInput.parse({}))),
  byId: authedProcedure
    .input(IdInput)
    .output(AuditEntry)
    .query(({ ctx, input }) => getAuditEntry(ctx.services.db, ctx.actor, input.id)),
});
