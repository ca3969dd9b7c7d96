// One attempt of a provider call through Node's own HTTP client on kept-alive connections (providerRequest in
// http.ts does the limiting and the retries). `fetch` (undici's web streams, a Request, a Response, an
// AbortSignal and a Headers per call) took about 7% of the server's busy CPU under a stream of orders; the
// sandbox's webhook sender made the same change (packages/sandbox/src/post.ts). What reaches the provider is
// what fetch sent: method, headers, body. Redirects are not followed (no provider call relies on one): a 3xx is
// an answer like any other, and providerRequest refuses it.
import http from 'node:http';
import https from 'node:https';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

/**
 * One agent per protocol for the process. An idle connection is closed after 4 s, as fetch did (undici's
 * keep-alive default), or sooner when the provider's Keep-Alive header says it closes them sooner (Node's agent
 * reads the hint): a provider that closes an idle connection first would reset the next call sent on it.
 */
const agents = {
  'http:': new http.Agent({ keepAlive: true, timeout: 4_000 }),
  'https:': new https.Agent({ keepAlive: true, timeout: 4_000 }),
};

/** An answer's headers as fetch's Headers reads them: names in any case, repeated headers joined with ', '. */
export class ProviderHeaders {
  private readonly values: Record<string, string[] | undefined>;

  /** `values`: lower-cased names, every value of each (node's `headersDistinct`). */
  constructor(values: Record<string, string[] | undefined>) {
    this.values = values;
  }

  get(name: string): string | null {
    return this.values[name.toLowerCase()]?.join(', ') ?? null;
  }

  has(name: string): boolean {
    return this.values[name.toLowerCase()] !== undefined;
  }
}

/** What a connector reads of an answer: the members of fetch's Response it used. */
export interface ProviderResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: ProviderHeaders;
}

/** An answer with its whole body, decoded as UTF-8. */
export interface TransportAnswer extends ProviderResponse {
  readonly text: string;
}

export interface TransportRequest {
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  /** For the whole attempt: connecting, sending, the answer's headers and its body. */
  timeoutMs: number;
}

/** The error of an attempt that took longer than its `timeoutMs` (named as fetch's AbortSignal.timeout names it). */
export class TransportTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}

const decoders: Record<string, (raw: Buffer) => Promise<Buffer>> = {
  gzip: promisify(zlib.gunzip),
  'x-gzip': promisify(zlib.gunzip),
  br: promisify(zlib.brotliDecompress),
  // Deflate as servers send it: zlib-wrapped, or raw now and then (fetch reads both).
  deflate: (raw) => promisify(zlib.inflate)(raw).catch(() => promisify(zlib.inflateRaw)(raw)),
};

/**
 * Sends one request and reads the whole answer; rejects on a network error or when `timeoutMs` passes first
 * (the request is then destroyed). Any status resolves: the caller decides what is worth a retry.
 */
export function send(url: string, init: TransportRequest): Promise<TransportAnswer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      throw new Error(`cannot call ${target.protocol} URLs`);
    }
    let settled = false;
    const settle = (err: Error | null, answer?: TransportAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(answer as TransportAnswer);
    };
    // What fetch added besides: compressed answers are welcome (and decoded), and a user agent.
    const headers: Record<string, string> = {
      'user-agent': 'node',
      'accept-encoding': 'gzip, deflate',
      ...lowerCased(init.headers),
    };
    if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
    const client = target.protocol === 'https:' ? https : http;
    const req = client.request(
      target,
      { method: init.method.toUpperCase(), headers, agent: agents[target.protocol] },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (err) => settle(err));
        res.on('close', () => {
          if (!res.complete) settle(new Error('the connection closed before the answer ended'));
        });
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const encoding = res.headers['content-encoding']?.trim().toLowerCase();
          const decode = encoding ? decoders[encoding] : undefined;
          const raw = Buffer.concat(chunks);
          const answer = (body: Buffer): TransportAnswer => ({
            status,
            ok: status >= 200 && status <= 299,
            headers: new ProviderHeaders(res.headersDistinct),
            text: utf8(body),
          });
          if (!decode || raw.length === 0) settle(null, answer(raw));
          else
            decode(raw).then(
              (body) => settle(null, answer(body)),
              (err: Error) => settle(new Error(`the answer's ${encoding} body could not be read: ${err.message}`)),
            );
        });
      },
    );
    const timer = setTimeout(() => {
      settle(new TransportTimeoutError(init.timeoutMs));
      req.destroy();
    }, init.timeoutMs);
    req.on('error', (err) => settle(err));
    req.end(init.body);
  });
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

/** UTF-8 without a leading byte-order mark, as fetch's `text()` reads a body. */
function utf8(body: Buffer): string {
  const text = body.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
