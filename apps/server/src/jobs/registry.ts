import { deliverMail, MAIL_SEND_JOB } from '../modules/mail/mail.service.ts';
import type { Services } from '../services.ts';
import type { JobDefinition } from './queue.ts';

/** Every job type the workers run. Modules add theirs here as the sync engine grows. */
export function jobDefinitions(services: Services): JobDefinition<never>[] {
  const mailSend: JobDefinition<{ id: string }> = {
    name: MAIL_SEND_JOB,
    handler: ({ id }) => deliverMail(services, id),
    retryLimit: 8,
    retryDelaySeconds: 10,
    concurrency: 2,
  };
  return [mailSend as JobDefinition<never>];
}
