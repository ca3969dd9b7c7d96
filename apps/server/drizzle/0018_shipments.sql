CREATE TABLE "carrier_events" (
	"id" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"event_id" text NOT NULL,
	"description" text NOT NULL,
	"tracking_code" text,
	"payload" jsonb NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"processed_at" timestamp with time zone,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "shipment_items" (
	"shipment_id" text NOT NULL,
	"account_id" text NOT NULL,
	"allocation_id" text NOT NULL,
	"line_id" text NOT NULL,
	"quantity" integer NOT NULL,
	"active" integer DEFAULT 1 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "shipment_packages" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"shipment_id" text NOT NULL,
	"position" integer NOT NULL,
	"weight" real NOT NULL,
	"length" real,
	"width" real,
	"height" real,
	"carrier_shipment_id" text,
	"rate_ids" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"tracking_code" text,
	"tracker_id" text,
	"tracking_url" text,
	"tracking_status" text,
	"label_url" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "shipments" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"order_id" text NOT NULL,
	"location_id" text,
	"status" text NOT NULL,
	"provider" text DEFAULT 'easypost' NOT NULL,
	"label_size" text DEFAULT '4x6' NOT NULL,
	"from_address" jsonb NOT NULL,
	"to_address" jsonb NOT NULL,
	"rates" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"rate_key" text,
	"carrier" text,
	"service" text,
	"amount" bigint,
	"currency" text,
	"tracking_code" text,
	"tracking_url" text,
	"tracking_status" text,
	"idempotency_key" text NOT NULL,
	"error" text,
	"write_back_status" text,
	"write_back_message" text,
	"channel_fulfillment_id" text,
	"created_by" text,
	"buying_at" timestamp with time zone,
	"purchased_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "shipments_status_check" CHECK ("shipments"."status" in ('rated', 'buying', 'purchased', 'voided'))
);
--> statement-breakpoint
ALTER TABLE "shipment_items" ADD CONSTRAINT "shipment_items_shipment_id_shipments_id_fk" FOREIGN KEY ("shipment_id") REFERENCES "public"."shipments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shipment_items" ADD CONSTRAINT "shipment_items_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shipment_packages" ADD CONSTRAINT "shipment_packages_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shipment_packages" ADD CONSTRAINT "shipment_packages_shipment_id_shipments_id_fk" FOREIGN KEY ("shipment_id") REFERENCES "public"."shipments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shipments" ADD CONSTRAINT "shipments_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shipments" ADD CONSTRAINT "shipments_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shipments" ADD CONSTRAINT "shipments_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "carrier_events_provider_event_key" ON "carrier_events" USING btree ("provider","event_id");--> statement-breakpoint
CREATE UNIQUE INDEX "shipment_items_key" ON "shipment_items" USING btree ("shipment_id","allocation_id");--> statement-breakpoint
CREATE UNIQUE INDEX "shipment_items_active_allocation" ON "shipment_items" USING btree ("allocation_id") WHERE "shipment_items"."active" = 1;--> statement-breakpoint
CREATE UNIQUE INDEX "shipment_packages_position_key" ON "shipment_packages" USING btree ("shipment_id","position");--> statement-breakpoint
CREATE INDEX "shipment_packages_tracking_idx" ON "shipment_packages" USING btree ("tracking_code");--> statement-breakpoint
CREATE INDEX "shipments_order_idx" ON "shipments" USING btree ("account_id","order_id","created_at");--> statement-breakpoint
CREATE INDEX "shipments_buying_idx" ON "shipments" USING btree ("status","buying_at");--> statement-breakpoint
CREATE UNIQUE INDEX "shipments_idempotency_key" ON "shipments" USING btree ("account_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "shipments_tracking_idx" ON "shipments" USING btree ("tracking_code");