CREATE TABLE "fulfillment_steps" (
	"allocation_id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"order_id" text NOT NULL,
	"scanned" integer DEFAULT 0 NOT NULL,
	"packed_at" timestamp with time zone,
	"packed_by" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "fulfillment_steps" ADD CONSTRAINT "fulfillment_steps_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "fulfillment_steps_order_idx" ON "fulfillment_steps" USING btree ("account_id","order_id");