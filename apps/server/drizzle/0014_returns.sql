CREATE TABLE "return_import_cursors" (
	"channel_id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"since" timestamp with time zone,
	"last_run_at" timestamp with time zone,
	"last_error" text
);
--> statement-breakpoint
CREATE TABLE "return_items" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"return_id" text NOT NULL,
	"position" integer NOT NULL,
	"order_line_id" text,
	"line_external_id" text,
	"sku" text,
	"variant_id" text,
	"qty" integer NOT NULL,
	"location_id" text,
	"location_external_id" text,
	"total" bigint DEFAULT 0 NOT NULL,
	"tax" bigint DEFAULT 0 NOT NULL,
	"restock" boolean DEFAULT true NOT NULL,
	"channel_restocked" boolean DEFAULT false NOT NULL,
	"restocked" integer DEFAULT 0 NOT NULL,
	"released" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "return_items_qty_check" CHECK ("return_items"."qty" >= 0)
);
--> statement-breakpoint
CREATE TABLE "returns" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"channel_id" text,
	"external_id" text NOT NULL,
	"order_external_id" text,
	"order_id" text,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"message" text,
	"provider_status" text DEFAULT 'completed' NOT NULL,
	"currency" text DEFAULT 'USD' NOT NULL,
	"tax" bigint DEFAULT 0 NOT NULL,
	"adjustment" bigint DEFAULT 0 NOT NULL,
	"total" bigint DEFAULT 0 NOT NULL,
	"bill_name" text,
	"receipt_number" text,
	"source" text DEFAULT 'channel' NOT NULL,
	"refund_state" text,
	"refund_message" text,
	"refund_shipping" bigint DEFAULT 0 NOT NULL,
	"refund_reason" text,
	"created_by" text,
	"provider_created_at" timestamp with time zone,
	"provider_updated_at" timestamp with time zone,
	"processed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "returns_status_check" CHECK ("returns"."status" in ('PENDING', 'PROCESSING', 'FINISHED', 'ERROR', 'SKIPPED'))
);
--> statement-breakpoint
ALTER TABLE "return_import_cursors" ADD CONSTRAINT "return_import_cursors_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "return_import_cursors" ADD CONSTRAINT "return_import_cursors_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "return_items" ADD CONSTRAINT "return_items_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "return_items" ADD CONSTRAINT "return_items_return_id_returns_id_fk" FOREIGN KEY ("return_id") REFERENCES "public"."returns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "return_items" ADD CONSTRAINT "return_items_order_line_id_order_lines_id_fk" FOREIGN KEY ("order_line_id") REFERENCES "public"."order_lines"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "return_items" ADD CONSTRAINT "return_items_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "returns" ADD CONSTRAINT "returns_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "returns" ADD CONSTRAINT "returns_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "returns" ADD CONSTRAINT "returns_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "return_items_return_idx" ON "return_items" USING btree ("return_id","position");--> statement-breakpoint
CREATE INDEX "return_items_line_idx" ON "return_items" USING btree ("order_line_id");--> statement-breakpoint
CREATE UNIQUE INDEX "returns_channel_external_key" ON "returns" USING btree ("account_id","channel_id","external_id");--> statement-breakpoint
CREATE INDEX "returns_account_created_idx" ON "returns" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "returns_account_order_external_idx" ON "returns" USING btree ("account_id","order_external_id");--> statement-breakpoint
CREATE INDEX "returns_order_idx" ON "returns" USING btree ("order_id");