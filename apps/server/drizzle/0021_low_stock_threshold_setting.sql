-- The low-stock threshold becomes an account setting (shared by the dashboard and the notifications): a value a
-- merchant saved in the notification settings moves there.
INSERT INTO "account_settings" ("account_id", "key", "value")
SELECT "account_id", 'lowStockThreshold', to_jsonb("low_stock_threshold")
FROM "notification_settings"
ON CONFLICT ("account_id", "key") DO NOTHING;--> statement-breakpoint
ALTER TABLE "notification_settings" DROP COLUMN "low_stock_threshold";