export { SANDBOX_APPS } from './apps.ts';
export type {
  PlaceOrderInput,
  ReturnOrderInput,
  SandboxContext,
  SandboxOptions,
  ShopControl,
  ShopSnapshot,
} from './context.ts';
export { signEasyPost } from './easypost/sim.ts';
export type { FaultConfig } from './faults.ts';
export { createRng, seedFrom } from './rng.ts';
export { type SeedCatalog, type SeedOptions, seedCatalog } from './seed.ts';
export { buildSandbox, type RunningSandbox, type Sandbox, startSandbox } from './server.ts';
