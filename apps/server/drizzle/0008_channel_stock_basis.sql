ALTER TABLE "channel_stock" ADD COLUMN "basis_qty" integer;--> statement-breakpoint
ALTER TABLE "channel_stock" ADD COLUMN "basis_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "channel_stock" ADD COLUMN "sent_qtys" integer[];