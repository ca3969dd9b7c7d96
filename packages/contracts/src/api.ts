// Where the server mounts its APIs (DESIGN §1); the web app calls these same-origin paths.
export const API_PATHS = {
  trpc: '/api/trpc',
  frontend: '/api/frontend',
  v1: '/api/v1',
  v2: '/api/v2',
} as const;

/** The most procedures one batched tRPC request may call: the server refuses more, the web client splits there. */
export const TRPC_MAX_BATCH = 50;

/** The REST API versions (SPEC §7): legacy-style `frontend` calls and the public v1 and v2. */
export type RestApiVersion = 'frontend' | 'v1' | 'v2';
