ALTER TABLE "inventory_movements" DROP CONSTRAINT "inventory_movements_variant_id_variants_id_fk";
--> statement-breakpoint
ALTER TABLE "inventory_movements" DROP CONSTRAINT "inventory_movements_location_id_locations_id_fk";
