CREATE TABLE "buffers" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"sku" text NOT NULL,
	"location_external_id" text NOT NULL,
	"channel_id" text NOT NULL,
	"qty" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "buffers_qty_check" CHECK ("buffers"."qty" >= 0)
);
--> statement-breakpoint
CREATE TABLE "channel_stock" (
	"account_id" text NOT NULL,
	"channel_id" text NOT NULL,
	"variant_id" text NOT NULL,
	"external_location_id" text NOT NULL,
	"location_id" text,
	"inventory_item_id" text NOT NULL,
	"pushed_qty" integer,
	"pushed_at" timestamp with time zone,
	"pending_qty" integer,
	"pending_at" timestamp with time zone,
	"channel_qty" integer,
	"channel_qty_at" timestamp with time zone,
	"last_error" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "channel_stock_channel_id_variant_id_external_location_id_pk" PRIMARY KEY("channel_id","variant_id","external_location_id")
);
--> statement-breakpoint
CREATE TABLE "inventory_dirty" (
	"account_id" text NOT NULL,
	"channel_id" text NOT NULL,
	"variant_id" text NOT NULL,
	"marked_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "inventory_dirty_channel_id_variant_id_pk" PRIMARY KEY("channel_id","variant_id")
);
--> statement-breakpoint
CREATE TABLE "inventory_levels" (
	"account_id" text NOT NULL,
	"variant_id" text NOT NULL,
	"location_id" text NOT NULL,
	"on_hand" integer DEFAULT 0 NOT NULL,
	"reserved" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "inventory_levels_variant_id_location_id_pk" PRIMARY KEY("variant_id","location_id"),
	CONSTRAINT "inventory_levels_reserved_check" CHECK ("inventory_levels"."reserved" >= 0)
);
--> statement-breakpoint
CREATE TABLE "inventory_movements" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"variant_id" text NOT NULL,
	"location_id" text NOT NULL,
	"delta" integer NOT NULL,
	"reserved_delta" integer DEFAULT 0 NOT NULL,
	"on_hand_after" integer NOT NULL,
	"reason" text NOT NULL,
	"source" text NOT NULL,
	"reference" text,
	"idempotency_key" text,
	"user_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "locations" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"name" text NOT NULL,
	"store_id" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"ships" boolean DEFAULT true NOT NULL,
	"pickup" boolean DEFAULT false NOT NULL,
	"priority" integer DEFAULT 0 NOT NULL,
	"address" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "locations_priority_check" CHECK ("locations"."priority" between 0 and 1000)
);
--> statement-breakpoint
CREATE TABLE "listings" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"channel_id" text NOT NULL,
	"variant_id" text NOT NULL,
	"external_product_id" text,
	"external_variant_id" text,
	"inventory_item_id" text,
	"sync_status_code" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"last_synced_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "listings_sync_status_check" CHECK ("listings"."sync_status_code" between 0 and 3)
);
--> statement-breakpoint
CREATE TABLE "products" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"brand" text,
	"product_type" text,
	"status" text DEFAULT 'active' NOT NULL,
	"images" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "variants" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"product_id" text NOT NULL,
	"sku" text NOT NULL,
	"alu" text,
	"barcode" text,
	"title" text DEFAULT '' NOT NULL,
	"price" integer DEFAULT 0 NOT NULL,
	"compare_at_price" integer,
	"position" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "variants_price_check" CHECK ("variants"."price" >= 0)
);
--> statement-breakpoint
CREATE TABLE "sync_items" (
	"id" serial PRIMARY KEY NOT NULL,
	"sync_id" integer NOT NULL,
	"account_id" text NOT NULL,
	"label" text NOT NULL,
	"variant_id" text,
	"status" text DEFAULT 'failed' NOT NULL,
	"error" text NOT NULL,
	"payload" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "syncs" (
	"id" serial PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"channel_id" text,
	"type" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"trigger" text DEFAULT 'manual' NOT NULL,
	"total" integer DEFAULT 0 NOT NULL,
	"processed" integer DEFAULT 0 NOT NULL,
	"succeeded" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"message" text,
	"retry_of" integer,
	"options" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "syncs_status_check" CHECK ("syncs"."status" in ('queued', 'running', 'succeeded', 'partial', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "buffers" ADD CONSTRAINT "buffers_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "buffers" ADD CONSTRAINT "buffers_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_stock" ADD CONSTRAINT "channel_stock_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_stock" ADD CONSTRAINT "channel_stock_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_stock" ADD CONSTRAINT "channel_stock_variant_id_variants_id_fk" FOREIGN KEY ("variant_id") REFERENCES "public"."variants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_stock" ADD CONSTRAINT "channel_stock_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inventory_dirty" ADD CONSTRAINT "inventory_dirty_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inventory_dirty" ADD CONSTRAINT "inventory_dirty_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inventory_dirty" ADD CONSTRAINT "inventory_dirty_variant_id_variants_id_fk" FOREIGN KEY ("variant_id") REFERENCES "public"."variants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inventory_levels" ADD CONSTRAINT "inventory_levels_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inventory_levels" ADD CONSTRAINT "inventory_levels_variant_id_variants_id_fk" FOREIGN KEY ("variant_id") REFERENCES "public"."variants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inventory_levels" ADD CONSTRAINT "inventory_levels_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inventory_movements" ADD CONSTRAINT "inventory_movements_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inventory_movements" ADD CONSTRAINT "inventory_movements_variant_id_variants_id_fk" FOREIGN KEY ("variant_id") REFERENCES "public"."variants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inventory_movements" ADD CONSTRAINT "inventory_movements_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "locations" ADD CONSTRAINT "locations_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listings" ADD CONSTRAINT "listings_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listings" ADD CONSTRAINT "listings_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "listings" ADD CONSTRAINT "listings_variant_id_variants_id_fk" FOREIGN KEY ("variant_id") REFERENCES "public"."variants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "variants" ADD CONSTRAINT "variants_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "variants" ADD CONSTRAINT "variants_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sync_items" ADD CONSTRAINT "sync_items_sync_id_syncs_id_fk" FOREIGN KEY ("sync_id") REFERENCES "public"."syncs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sync_items" ADD CONSTRAINT "sync_items_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "syncs" ADD CONSTRAINT "syncs_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "syncs" ADD CONSTRAINT "syncs_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "buffers_account_key" ON "buffers" USING btree ("account_id","channel_id","sku","location_external_id");--> statement-breakpoint
CREATE INDEX "buffers_account_sku_idx" ON "buffers" USING btree ("account_id","sku");--> statement-breakpoint
CREATE INDEX "channel_stock_item_idx" ON "channel_stock" USING btree ("channel_id","inventory_item_id","external_location_id");--> statement-breakpoint
CREATE INDEX "channel_stock_account_variant_idx" ON "channel_stock" USING btree ("account_id","variant_id");--> statement-breakpoint
CREATE INDEX "inventory_dirty_marked_idx" ON "inventory_dirty" USING btree ("channel_id","marked_at");--> statement-breakpoint
CREATE INDEX "inventory_levels_account_location_idx" ON "inventory_levels" USING btree ("account_id","location_id");--> statement-breakpoint
CREATE INDEX "inventory_movements_level_idx" ON "inventory_movements" USING btree ("variant_id","location_id","id");--> statement-breakpoint
CREATE INDEX "inventory_movements_account_idx" ON "inventory_movements" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "inventory_movements_idempotency_key" ON "inventory_movements" USING btree ("account_id","idempotency_key");--> statement-breakpoint
CREATE UNIQUE INDEX "locations_account_store_key" ON "locations" USING btree ("account_id","store_id");--> statement-breakpoint
CREATE INDEX "locations_account_name_idx" ON "locations" USING btree ("account_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "listings_channel_variant_key" ON "listings" USING btree ("channel_id","variant_id");--> statement-breakpoint
CREATE UNIQUE INDEX "listings_channel_item_key" ON "listings" USING btree ("channel_id","inventory_item_id");--> statement-breakpoint
CREATE INDEX "listings_variant_idx" ON "listings" USING btree ("variant_id");--> statement-breakpoint
CREATE INDEX "listings_account_channel_status_idx" ON "listings" USING btree ("account_id","channel_id","sync_status_code");--> statement-breakpoint
CREATE INDEX "products_account_idx" ON "products" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "variants_account_sku_key" ON "variants" USING btree ("account_id","sku");--> statement-breakpoint
CREATE INDEX "variants_product_idx" ON "variants" USING btree ("product_id","position");--> statement-breakpoint
CREATE INDEX "variants_account_alu_idx" ON "variants" USING btree ("account_id","alu");--> statement-breakpoint
CREATE INDEX "variants_account_barcode_idx" ON "variants" USING btree ("account_id","barcode");--> statement-breakpoint
CREATE INDEX "sync_items_sync_idx" ON "sync_items" USING btree ("sync_id","id");--> statement-breakpoint
CREATE INDEX "syncs_account_idx" ON "syncs" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "syncs_account_type_idx" ON "syncs" USING btree ("account_id","type","id");--> statement-breakpoint
CREATE INDEX "syncs_channel_idx" ON "syncs" USING btree ("channel_id","id");