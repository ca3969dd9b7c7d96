// Every module's tables, for Drizzle's relational queries and for drizzle-kit.
export * from '../modules/settings/settings.tables.ts';
