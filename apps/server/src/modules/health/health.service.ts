import type { CheckBuildIdInput, CheckBuildIdOutput } from '@switchyard/contracts';

/** The web client asks whether it was built from the build this server serves (SPEC §8). */
export function checkBuildId(servedBuildId: string, input: CheckBuildIdInput): CheckBuildIdOutput {
  return { match: input.buildId === servedBuildId };
}
