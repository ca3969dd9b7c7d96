ALTER TABLE "channel_stock" ADD COLUMN "pending_key" text;--> statement-breakpoint
ALTER TABLE "channel_stock" ADD COLUMN "pending_compare" integer;