CREATE TABLE "metric_sku_monthly" (
	"account_id" text NOT NULL,
	"month" date NOT NULL,
	"sku" text NOT NULL,
	"units" integer DEFAULT 0 NOT NULL,
	"sales" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "metric_sku_monthly_account_id_month_sku_pk" PRIMARY KEY("account_id","month","sku")
);
--> statement-breakpoint
ALTER TABLE "metric_sku_monthly" ADD CONSTRAINT "metric_sku_monthly_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;