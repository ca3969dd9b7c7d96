// The PostgreSQL a bench runs on: BENCH_DATABASE_URL, else the machine's own server, over its Unix socket when it
// has one (Debian's /var/run/postgresql), else over TCP at 127.0.0.1:5432. A database on the same machine is
// reached by its socket in production too: the kernel's TCP path costs both sides CPU on every statement (the
// order bench's server and PostgreSQL used about a tenth less CPU an order over the socket, bench/README.md), and
// on this 2-core machine that CPU is what the figures measure.
import { existsSync } from 'node:fs';

const SOCKET_DIR = '/var/run/postgresql';

export function benchDatabaseUrl(): string {
  if (process.env.BENCH_DATABASE_URL) return process.env.BENCH_DATABASE_URL;
  return existsSync(`${SOCKET_DIR}/.s.PGSQL.5432`)
    ? `postgres://postgres@localhost/test?host=${SOCKET_DIR}`
    : 'postgres://postgres@127.0.0.1:5432/test';
}

/** How a bench reached its database, for its results ("unix socket" or "tcp"). */
export const databaseTransport = (url: string) => (/[?&]host=(%2F|\/)/i.test(url) ? 'unix socket' : 'tcp');
