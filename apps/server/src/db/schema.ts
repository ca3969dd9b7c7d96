// Every module's tables, for Drizzle's relational queries and for drizzle-kit.

export * from '../modules/accounts/accounts.tables.ts';
export * from '../modules/admin/admin.tables.ts';
export * from '../modules/apps/apps.tables.ts';
export * from '../modules/audit/audit.tables.ts';
export * from '../modules/billing/billing.tables.ts';
export * from '../modules/buffers/buffers.tables.ts';
export * from '../modules/channels/channels.tables.ts';
export * from '../modules/comments/comments.tables.ts';
export * from '../modules/fulfillment/fulfillment.tables.ts';
export * from '../modules/inventory/inventory.tables.ts';
export * from '../modules/locations/locations.tables.ts';
export * from '../modules/mail/mail.tables.ts';
export * from '../modules/metrics/metrics.tables.ts';
export * from '../modules/notifications/notifications.tables.ts';
export * from '../modules/orders/orders.tables.ts';
export * from '../modules/products/products.tables.ts';
export * from '../modules/returns/returns.tables.ts';
export * from '../modules/routing/routing.tables.ts';
export * from '../modules/settings/settings.tables.ts';
export * from '../modules/shipments/shipments.tables.ts';
export * from '../modules/syncs/syncs.tables.ts';
