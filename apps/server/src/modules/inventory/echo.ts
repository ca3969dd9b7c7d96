// The echo of our own push, judged where a stock event is stored (channels.intake.ts): the rule of `isEcho`
// (inbound.ts) as SQL, so that the acknowledgement's one statement stores an echo as done and nothing reads it
// again. echo.db.test.ts holds the two to the same answers.
import { type SQL, sql } from 'drizzle-orm';
import { channelStock } from './inventory.tables.ts';

/**
 * A select of `(ord, echo)` over `reports`, a relation of `(ord int, channel_id text, item text, loc text, qty int,
 * at timestamptz)` (an event's reports share its `ord`): an event is an echo when every level each of its reports
 * names (one at least) is one by `isEcho`. Events without reports are not in the answer.
 *
 * `isEcho(row, report)`: a report of the quantity in flight made no earlier than its send (`reportedBefore`: a
 * whole-second time stands for its whole second), or else of the quantity last acknowledged, with no report of
 * the channel's own since.
 */
export const echoJudgement = (reports: SQL) => sql`
  select r.ord, bool_and(cs.channel_id is not null and case
      when cs.pending_qty is not null and cs.pending_qty = r.qty then
        cs.pending_at is null or r.at + case when date_trunc('second', r.at) = r.at then interval '1 second'
          else interval '1 millisecond' end > cs.pending_at
      else coalesce(cs.pushed_qty = r.qty and cs.pushed_at is not null
        and (cs.channel_qty_at is null or cs.channel_qty_at <= cs.pushed_at), false)
    end) as echo
  from ${reports} as r
  left join ${channelStock} cs
    on cs.channel_id = r.channel_id and cs.inventory_item_id = r.item and cs.external_location_id = r.loc
  group by r.ord`;
