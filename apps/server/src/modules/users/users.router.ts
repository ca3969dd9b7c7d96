import {
  ChangePasswordInput,
  ConfirmEmailChangeInput,
  PublicUser,
  RequestEmailChangeInput,
  SetColumnsFilterInput,
  UpdateProfileInput,
  UserSettings,
} from '@switchyard/contracts';
import { authedProcedure, router } from '../../trpc/init.ts';
import {
  changePassword,
  confirmEmailChange,
  getProfile,
  requestEmailChange,
  setColumnsFilter,
  updateProfile,
} from './users.service.ts';

export const usersRouter = router({
  me: authedProcedure.output(PublicUser).query(({ ctx }) => getProfile(ctx.services.db, ctx.actor)),
  updateProfile: authedProcedure
    .input(UpdateProfileInput)
    .output(PublicUser)
    .mutation(({ ctx, input }) => updateProfile(ctx.services.db, ctx.actor, input)),
  changePassword: authedProcedure
    .input(ChangePasswordInput)
    .mutation(({ ctx, input }) => changePassword(ctx.services.db, ctx.actor, input)),
  requestEmailChange: authedProcedure
    .input(RequestEmailChangeInput)
    .mutation(({ ctx, input }) => requestEmailChange(ctx.services, ctx.actor, input)),
  confirmEmailChange: authedProcedure
    .input(ConfirmEmailChangeInput)
    .output(PublicUser)
    .mutation(({ ctx, input }) => confirmEmailChange(ctx.services.db, ctx.actor, input.code)),
  setColumnsFilter: authedProcedure
    .input(SetColumnsFilterInput)
    .output(UserSettings)
    .mutation(({ ctx, input }) => setColumnsFilter(ctx.services.db, ctx.actor, input)),
});
