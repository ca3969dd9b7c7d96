CREATE TABLE "metric_daily" (
	"account_id" text NOT NULL,
	"day" date NOT NULL,
	"channel_id" text DEFAULT '' NOT NULL,
	"location_id" text DEFAULT '' NOT NULL,
	"orders" integer DEFAULT 0 NOT NULL,
	"units" integer DEFAULT 0 NOT NULL,
	"sales" bigint DEFAULT 0 NOT NULL,
	"fulfilled" integer DEFAULT 0 NOT NULL,
	"fulfilled_seconds" bigint DEFAULT 0 NOT NULL,
	"returns" integer DEFAULT 0 NOT NULL,
	"return_units" integer DEFAULT 0 NOT NULL,
	"return_total" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "metric_daily_account_id_day_channel_id_location_id_pk" PRIMARY KEY("account_id","day","channel_id","location_id")
);
--> statement-breakpoint
CREATE TABLE "metric_facts" (
	"source_id" text NOT NULL,
	"source" text NOT NULL,
	"account_id" text NOT NULL,
	"day" date NOT NULL,
	"channel_id" text DEFAULT '' NOT NULL,
	"location_id" text DEFAULT '' NOT NULL,
	"orders" integer DEFAULT 0 NOT NULL,
	"units" integer DEFAULT 0 NOT NULL,
	"sales" bigint DEFAULT 0 NOT NULL,
	"skus" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"fulfilled_day" date,
	"fulfilled_seconds" bigint,
	"returns" integer DEFAULT 0 NOT NULL,
	"return_units" integer DEFAULT 0 NOT NULL,
	"return_total" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "metric_facts_source_source_id_pk" PRIMARY KEY("source","source_id")
);
--> statement-breakpoint
CREATE TABLE "metric_sku_daily" (
	"account_id" text NOT NULL,
	"day" date NOT NULL,
	"sku" text NOT NULL,
	"units" integer DEFAULT 0 NOT NULL,
	"sales" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "metric_sku_daily_account_id_day_sku_pk" PRIMARY KEY("account_id","day","sku")
);
--> statement-breakpoint
ALTER TABLE "metric_daily" ADD CONSTRAINT "metric_daily_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "metric_facts" ADD CONSTRAINT "metric_facts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "metric_sku_daily" ADD CONSTRAINT "metric_sku_daily_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "metric_facts_account_idx" ON "metric_facts" USING btree ("account_id");