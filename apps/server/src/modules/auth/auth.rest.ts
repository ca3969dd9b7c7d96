import {
  CodeInput,
  EmailInput,
  LoginInput,
  LoginOutput,
  RegisterInput,
  ResetCheckInput,
  ResetUpdateInput,
} from '@switchyard/contracts';
import type { FastifyRequest } from 'fastify';
import { type RestApp, restRoute } from '../../rest/route.ts';
import type { Services } from '../../services.ts';
import { endActing } from '../admin/admin.service.ts';
import {
  type ClientInfo,
  checkResetCode,
  confirmRegistration,
  login,
  logout,
  register,
  requestPasswordReset,
  resendConfirmation,
  resetPassword,
} from './auth.service.ts';

export const clientOf = (req: FastifyRequest): ClientInfo => ({ ip: req.ip, userAgent: req.headers['user-agent'] });

/** SPEC §7 frontend calls of the account flows. */
export function authRest(app: RestApp, services: Services) {
  restRoute(app, services, {
    method: 'POST',
    url: '/register/register',
    access: 'public',
    input: RegisterInput,
    handler: async ({ input, req, reply }) => {
      const result = await register(services, input, clientOf(req));
      reply.status(201);
      return result;
    },
  });
  restRoute(app, services, {
    method: 'POST',
    url: '/register/sendConfirmEmail',
    access: 'public',
    input: EmailInput,
    handler: ({ input, req }) => resendConfirmation(services, input.email, clientOf(req)),
  });
  restRoute(app, services, {
    method: 'POST',
    url: '/register/confirmEmail',
    access: 'public',
    input: CodeInput,
    handler: async ({ input }) => {
      await confirmRegistration(services, input.code);
      return { ok: true };
    },
  });
  restRoute(app, services, {
    method: 'POST',
    url: '/login',
    access: 'public',
    input: LoginInput,
    output: LoginOutput,
    handler: ({ input, req }) => login(services, input, clientOf(req)),
  });
  restRoute(app, services, {
    method: 'POST',
    url: '/logout',
    // Signing out of an account a superuser acts as ends that acting session (and is audited there).
    handler: async ({ actor }) => {
      await endActing(services.db, actor);
      return logout(services.db, actor);
    },
  });
  restRoute(app, services, {
    method: 'POST',
    url: '/reset/getCode',
    access: 'public',
    input: EmailInput,
    handler: ({ input, req }) => requestPasswordReset(services, input.email, clientOf(req)),
  });
  restRoute(app, services, {
    method: 'POST',
    url: '/reset/checkCode',
    access: 'public',
    input: ResetCheckInput,
    handler: ({ input }) => checkResetCode(services.db, input.token),
  });
  restRoute(app, services, {
    method: 'POST',
    url: '/reset/updatePassword',
    access: 'public',
    input: ResetUpdateInput,
    handler: ({ input }) => resetPassword(services, input.token, input.password),
  });
}
