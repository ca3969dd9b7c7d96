CREATE TABLE "comments" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"entity_type" text NOT NULL,
	"entity_id" text NOT NULL,
	"text" text NOT NULL,
	"user_id" text,
	"author" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "channel_stock_claims" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"channel_id" text NOT NULL,
	"variant_id" text NOT NULL,
	"external_location_id" text NOT NULL,
	"location_id" text NOT NULL,
	"kind" text NOT NULL,
	"qty" integer NOT NULL,
	"remaining" integer NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"key" text NOT NULL,
	"reference" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "order_allocations" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"order_id" text NOT NULL,
	"line_id" text NOT NULL,
	"variant_id" text,
	"location_id" text,
	"quantity" integer NOT NULL,
	"status" integer NOT NULL,
	"reserved" integer DEFAULT 0 NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "order_allocations_status_check" CHECK ("order_allocations"."status" between 0 and 5),
	CONSTRAINT "order_allocations_reserved_check" CHECK ("order_allocations"."reserved" >= 0 and "order_allocations"."reserved" <= "order_allocations"."quantity")
);
--> statement-breakpoint
CREATE TABLE "order_events" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"order_id" text NOT NULL,
	"kind" text NOT NULL,
	"message" text NOT NULL,
	"actor" text,
	"user_id" text,
	"from_status" integer,
	"to_status" integer,
	"outcome" text,
	"key" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "order_import_cursors" (
	"channel_id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"since" timestamp with time zone,
	"last_run_at" timestamp with time zone,
	"last_error" text
);
--> statement-breakpoint
CREATE TABLE "order_lines" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"order_id" text NOT NULL,
	"position" integer NOT NULL,
	"external_id" text NOT NULL,
	"sku" text,
	"variant_id" text,
	"title" text NOT NULL,
	"quantity" integer NOT NULL,
	"unit_price" bigint DEFAULT 0 NOT NULL,
	"discount" bigint DEFAULT 0 NOT NULL,
	"tax" bigint DEFAULT 0 NOT NULL,
	"fulfilled_qty" integer DEFAULT 0 NOT NULL,
	"cancelled_qty" integer DEFAULT 0 NOT NULL,
	"refunded_qty" integer DEFAULT 0 NOT NULL,
	"stock_location_external_id" text,
	"channel_claimed" boolean DEFAULT false NOT NULL,
	"channel_restock_claimed" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "orders" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"channel_id" text,
	"external_id" text NOT NULL,
	"number" text NOT NULL,
	"status" integer NOT NULL,
	"fulfillment_type" text DEFAULT 'ship' NOT NULL,
	"customer_name" text,
	"customer_email" text,
	"customer_phone" text,
	"shipping_address" jsonb,
	"billing_address" jsonb,
	"pickup_location_id" text,
	"channel_location_id" text,
	"currency" text NOT NULL,
	"subtotal" bigint DEFAULT 0 NOT NULL,
	"shipping_total" bigint DEFAULT 0 NOT NULL,
	"discount_total" bigint DEFAULT 0 NOT NULL,
	"tax_total" bigint DEFAULT 0 NOT NULL,
	"total" bigint DEFAULT 0 NOT NULL,
	"financial_status" text,
	"fulfillment_status" text,
	"note" text,
	"tags" text[] DEFAULT '{}'::text[] NOT NULL,
	"admin_url" text,
	"item_count" integer DEFAULT 0 NOT NULL,
	"flagged" boolean DEFAULT false NOT NULL,
	"search_text" text DEFAULT '' NOT NULL,
	"cancelled_at" timestamp with time zone,
	"cancel_reason" text,
	"placed_at" timestamp with time zone NOT NULL,
	"provider_updated_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "orders_status_check" CHECK ("orders"."status" between 0 and 9)
);
--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_stock_claims" ADD CONSTRAINT "channel_stock_claims_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_stock_claims" ADD CONSTRAINT "channel_stock_claims_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_allocations" ADD CONSTRAINT "order_allocations_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_allocations" ADD CONSTRAINT "order_allocations_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_allocations" ADD CONSTRAINT "order_allocations_line_id_order_lines_id_fk" FOREIGN KEY ("line_id") REFERENCES "public"."order_lines"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_allocations" ADD CONSTRAINT "order_allocations_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_events" ADD CONSTRAINT "order_events_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_events" ADD CONSTRAINT "order_events_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_import_cursors" ADD CONSTRAINT "order_import_cursors_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_import_cursors" ADD CONSTRAINT "order_import_cursors_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_lines" ADD CONSTRAINT "order_lines_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_lines" ADD CONSTRAINT "order_lines_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_pickup_location_id_locations_id_fk" FOREIGN KEY ("pickup_location_id") REFERENCES "public"."locations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "comments_entity_idx" ON "comments" USING btree ("account_id","entity_type","entity_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "channel_stock_claims_key" ON "channel_stock_claims" USING btree ("account_id","key");--> statement-breakpoint
CREATE INDEX "channel_stock_claims_open_idx" ON "channel_stock_claims" USING btree ("channel_id","variant_id","external_location_id","kind") WHERE "channel_stock_claims"."remaining" <> 0;--> statement-breakpoint
CREATE INDEX "channel_stock_claims_created_idx" ON "channel_stock_claims" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "order_allocations_order_idx" ON "order_allocations" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "order_allocations_location_idx" ON "order_allocations" USING btree ("account_id","location_id","status");--> statement-breakpoint
CREATE INDEX "order_events_order_idx" ON "order_events" USING btree ("order_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "order_events_key" ON "order_events" USING btree ("account_id","key");--> statement-breakpoint
CREATE INDEX "order_lines_order_idx" ON "order_lines" USING btree ("order_id","position");--> statement-breakpoint
CREATE INDEX "order_lines_account_sku_idx" ON "order_lines" USING btree ("account_id","sku");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_channel_external_key" ON "orders" USING btree ("account_id","channel_id","external_id");--> statement-breakpoint
CREATE INDEX "orders_account_status_idx" ON "orders" USING btree ("account_id","status","id");--> statement-breakpoint
CREATE INDEX "orders_account_id_idx" ON "orders" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "orders_account_placed_idx" ON "orders" USING btree ("account_id","placed_at");