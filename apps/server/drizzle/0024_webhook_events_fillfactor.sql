-- A webhook event is written three times: stored, taken by a pass (attempts + 1), and finished. Pages filled
-- to the brim sent each take to another page, and so into all four indexes; with room left on the page the
-- take is a HOT update (no indexed column changes). Only pages written from now on keep the room.
ALTER TABLE "webhook_events" SET (fillfactor = 50);
