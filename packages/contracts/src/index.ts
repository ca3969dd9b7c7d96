export * from './accounts.ts';
export * from './api.ts';
export * from './apps.ts';
export * from './auth.ts';
export * from './errors.ts';
export * from './health.ts';
export * from './limits.ts';
export * from './search.ts';
