import {
  AllocationIdInput,
  AllocationList,
  AllocationRow,
  AllocationUpdateResult,
  DryRunInput,
  DryRunResult,
  ListAllocationsInput,
  OrderDecisionsInput,
  OrderRoutingDecisions,
  ReassignAllocationInput,
  RejectAllocationInput,
  ReorderRoutingRulesInput,
  ReplayInput,
  ReplaySummary,
  RoutingLocation,
  RoutingRuleSet,
  RoutingVersionInput,
  RoutingVersionList,
  RoutingVersionsInput,
  SaveRoutingRulesInput,
} from '@switchyard/contracts';
import { z } from 'zod';
import { authedProcedure, router } from '../../trpc/init.ts';
import { dryRun, replay } from './routing.dryrun.ts';
import { getAllocation, listAllocations, reassignAllocation, rejectAllocation } from './routing.reroute.ts';
import { listVersions, liveRuleSet, reorderRules, ruleSetVersion, saveRules } from './routing.rules.ts';
import { orderDecisions, routingLocations } from './routing.service.ts';

/** tRPC `routing.*` (packages/contracts/src/routing.ts lists the calls and their shapes). */
export const routingRouter = router({
  rules: authedProcedure.output(RoutingRuleSet).query(({ ctx }) => liveRuleSet(ctx.services.db, ctx.actor.accountId)),
  version: authedProcedure
    .input(RoutingVersionInput)
    .output(RoutingRuleSet)
    .query(({ ctx, input }) => ruleSetVersion(ctx.services.db, ctx.actor, input.version)),
  versions: authedProcedure
    .input(RoutingVersionsInput.optional())
    .output(RoutingVersionList)
    .query(({ ctx, input }) => listVersions(ctx.services.db, ctx.actor, input)),
  save: authedProcedure
    .input(SaveRoutingRulesInput)
    .output(RoutingRuleSet)
    .mutation(({ ctx, input }) => saveRules(ctx.services.db, ctx.actor, input)),
  reorder: authedProcedure
    .input(ReorderRoutingRulesInput)
    .output(RoutingRuleSet)
    .mutation(({ ctx, input }) => reorderRules(ctx.services.db, ctx.actor, input)),
  locations: authedProcedure
    .output(z.array(RoutingLocation))
    .query(({ ctx }) => routingLocations(ctx.services.db, ctx.actor)),
  dryRun: authedProcedure
    .input(DryRunInput)
    .output(DryRunResult)
    .mutation(({ ctx, input }) => dryRun(ctx.services.db, ctx.actor, input)),
  replay: authedProcedure
    .input(ReplayInput)
    .output(ReplaySummary)
    .mutation(({ ctx, input }) => replay(ctx.services.db, ctx.actor, input)),
  decisions: authedProcedure
    .input(OrderDecisionsInput)
    .output(OrderRoutingDecisions)
    .query(({ ctx, input }) => orderDecisions(ctx.services.db, ctx.actor, input.orderId)),
  allocations: authedProcedure
    .input(ListAllocationsInput.optional())
    .output(AllocationList)
    .query(({ ctx, input }) => listAllocations(ctx.services.db, ctx.actor, input)),
  allocation: authedProcedure
    .input(AllocationIdInput)
    .output(AllocationRow)
    .query(({ ctx, input }) => getAllocation(ctx.services.db, ctx.actor, input.id)),
  reject: authedProcedure
    .input(RejectAllocationInput)
    .output(AllocationUpdateResult)
    .mutation(({ ctx, input }) => rejectAllocation(ctx.services, ctx.actor, input)),
  reassign: authedProcedure
    .input(ReassignAllocationInput)
    .output(AllocationUpdateResult)
    .mutation(({ ctx, input }) => reassignAllocation(ctx.services, ctx.actor, input)),
});
