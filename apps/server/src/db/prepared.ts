// Statements this process runs again and again are prepared once per connection (PostgreSQL server only).
//
// Every statement sent unnamed is parsed, analysed and planned afresh. Under a stream of orders the same few
// dozen statements run thousands of times, and PostgreSQL spent a quarter of its time on their planning alone
// (pg_stat_statements with track_planning, bench/README.md "Statements prepared once"). A named statement is
// parsed once on its connection, and after five runs PostgreSQL keeps a generic plan when it costs no more than
// the custom ones. node-postgres prepares a statement when the query has a name, so this client names them.
//
// Only what repeats is named: a statement's text must have come PREPARE_AFTER times in this process first (a
// list of ids makes a new text for every length, and such one-offs would fill the connection's memory). A
// connection holds at most PREPARED_PER_CONNECTION of them; the pool retires connections after an hour, and
// their statements with them. A connection pooler in transaction mode (PgBouncer) would need this off.
import pg from 'pg';

/** Runs of the same text in this process before its statement is prepared. */
export const PREPARE_AFTER = 3;
/** Prepared statements a connection keeps at most (the rest run unnamed). */
export const PREPARED_PER_CONNECTION = 200;
/** Distinct texts counted before the count starts again (a bound on this process's memory). */
const COUNTED_TEXTS = 10_000;

const runs = new Map<string, number>();

/** A pg client that names the parameterised statements this process repeats (see the top of this file). */
export class PreparingClient extends pg.Client {
  readonly #names = new Map<string, string>();

  // pg's query has a dozen overloads; this one only adds a name to a plain { text } config or a text with values.
  // biome-ignore lint/suspicious/noExplicitAny: passed through to pg unchanged
  override query(config: any, values?: any, callback?: any): any {
    let named = config;
    if (typeof config === 'string' && Array.isArray(values) && values.length > 0) {
      const name = this.nameFor(config);
      if (name) named = { text: config, name };
    } else if (
      config !== null &&
      typeof config === 'object' &&
      typeof config.text === 'string' &&
      config.name === undefined &&
      typeof config.submit !== 'function' &&
      (Array.isArray(values) ? values.length > 0 : Array.isArray(config.values) && config.values.length > 0)
    ) {
      const name = this.nameFor(config.text);
      if (name) named = { ...config, name };
    }
    return super.query(named, values, callback);
  }

  /** The statement's name on this connection, or undefined to send it unnamed. */
  private nameFor(text: string): string | undefined {
    const known = this.#names.get(text);
    if (known) return known;
    const seen = (runs.get(text) ?? 0) + 1;
    if (runs.size >= COUNTED_TEXTS && seen === 1) runs.clear();
    runs.set(text, seen);
    if (seen < PREPARE_AFTER || this.#names.size >= PREPARED_PER_CONNECTION) return undefined;
    const name = `sy_${this.#names.size + 1}`;
    this.#names.set(text, name);
    return name;
  }
}

/** Pool options that make its connections PreparingClients. */
export const preparingPoolOptions = { Client: PreparingClient, maxLifetimeSeconds: 3600 } as const;
