CREATE TABLE "metric_sku_yearly" (
	"account_id" text NOT NULL,
	"year" date NOT NULL,
	"sku" text NOT NULL,
	"units" integer DEFAULT 0 NOT NULL,
	"sales" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "metric_sku_yearly_account_id_year_sku_pk" PRIMARY KEY("account_id","year","sku")
);
--> statement-breakpoint
ALTER TABLE "metric_sku_yearly" ADD CONSTRAINT "metric_sku_yearly_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
INSERT INTO "metric_sku_yearly" ("account_id", "year", "sku", "units", "sales")
SELECT "account_id", date_trunc('year', "month")::date, "sku", sum("units"), sum("sales")
FROM "metric_sku_monthly"
GROUP BY "account_id", date_trunc('year', "month")::date, "sku"
ORDER BY 1, 2, 3;
