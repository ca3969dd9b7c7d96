import { z } from 'zod';

export const CheckBuildIdInput = z.object({ buildId: z.string().min(1).max(100) });
export type CheckBuildIdInput = z.infer<typeof CheckBuildIdInput>;
export const CheckBuildIdOutput = z.object({ match: z.boolean() });
export type CheckBuildIdOutput = z.infer<typeof CheckBuildIdOutput>;
