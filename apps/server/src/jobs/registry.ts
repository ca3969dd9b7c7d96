import type { Services } from '../services.ts';
import type { JobDefinition } from './queue.ts';

/** Every job type the workers run. Modules add theirs here as the sync engine grows. */
export function jobDefinitions(_services: Services): JobDefinition<never>[] {
  return [];
}
