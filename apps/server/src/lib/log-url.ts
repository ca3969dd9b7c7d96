// What a request log line may say of an address. The codes of reset and confirmation links (`/reset/<code>`,
// `/confirm/<code>`) and the secrets some callers put in a query (an OAuth callback's `code` and `state`, a
// BigCommerce `signed_payload_jwt`, an `hmac`, the input of an auth procedure called by GET) are replaced: a log is read by more people than the secrets are for.

const SECRET_SEGMENT = /^(\/(?:reset|confirm))\/[^/?#]+/;
const SECRET_PARAMS = new Set([
  'code',
  'state',
  'hmac',
  'signature',
  'signed_payload',
  'signed_payload_jwt',
  'token',
  'access_token',
  'password',
  'secret',
]);
const HIDDEN = '[redacted]';

/** A tRPC call of the auth router (a confirmation code checked by a query, say) carries it in `input`. */
const AUTH_PROCEDURE = /\/trpc\/(?:[^/?]*,)?auth\./;

export function loggableUrl(url: string): string {
  const at = url.indexOf('?');
  const rawPath = at < 0 ? url : url.slice(0, at);
  const path = rawPath.replace(SECRET_SEGMENT, `$1/${HIDDEN}`);
  const authCall = AUTH_PROCEDURE.test(rawPath);
  if (at < 0) return path;
  const query = url
    .slice(at + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let key = name;
      try {
        key = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // A malformed escape: judged as written.
      }
      const secret = SECRET_PARAMS.has(key.toLowerCase()) || (authCall && key === 'input');
      return eq >= 0 && secret ? `${name}=${HIDDEN}` : pair;
    })
    .join('&');
  return `${path}?${query}`;
}

/** pino's `req` serializer: Fastify's fields, the address through `loggableUrl`. */
export function serializeRequest(req: {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number | undefined } | null;
}) {
  return {
    method: req.method,
    url: req.url === undefined ? undefined : loggableUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}
