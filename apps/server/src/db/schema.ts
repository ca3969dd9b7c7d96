// Every module's tables, for Drizzle's relational queries and for drizzle-kit.

export * from '../modules/accounts/accounts.tables.ts';
export * from '../modules/admin/admin.tables.ts';
export * from '../modules/apps/apps.tables.ts';
export * from '../modules/audit/audit.tables.ts';
export * from '../modules/mail/mail.tables.ts';
export * from '../modules/settings/settings.tables.ts';
