CREATE TABLE "routing_decisions" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"order_id" text NOT NULL,
	"kind" text NOT NULL,
	"rule_set_version" integer NOT NULL,
	"allocation_ids" text[] DEFAULT '{}'::text[] NOT NULL,
	"actor" text,
	"user_id" text,
	"trace" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "routing_rule_sets" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"version" integer NOT NULL,
	"rules" jsonb NOT NULL,
	"note" text,
	"created_by_user_id" text,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "locations" ADD COLUMN "latitude" double precision;--> statement-breakpoint
ALTER TABLE "locations" ADD COLUMN "longitude" double precision;--> statement-breakpoint
ALTER TABLE "routing_decisions" ADD CONSTRAINT "routing_decisions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "routing_decisions" ADD CONSTRAINT "routing_decisions_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "routing_rule_sets" ADD CONSTRAINT "routing_rule_sets_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "routing_decisions_order_idx" ON "routing_decisions" USING btree ("order_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "routing_rule_sets_version_key" ON "routing_rule_sets" USING btree ("account_id","version");--> statement-breakpoint
ALTER TABLE "locations" ADD CONSTRAINT "locations_latitude_check" CHECK ("locations"."latitude" between -90 and 90);--> statement-breakpoint
ALTER TABLE "locations" ADD CONSTRAINT "locations_longitude_check" CHECK ("locations"."longitude" between -180 and 180);