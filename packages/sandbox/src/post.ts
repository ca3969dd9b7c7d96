// A POST through Node's own HTTP client on kept-alive connections: how the webhook sender calls receivers.
// `fetch` (undici's web streams, an AbortSignal and a Request per call) took about a third of the simulators'
// CPU under a stream of orders (bench/README.md, "Cheaper webhook deliveries"), and the simulators share the
// machine with the server they measure. What reaches the receiver is the same: method, headers, body.
import http from 'node:http';
import https from 'node:https';

const agents = {
  'http:': new http.Agent({ keepAlive: true, timeout: 30_000 }),
  'https:': new https.Agent({ keepAlive: true, timeout: 30_000 }),
};

/** Posts `body` to `url`; answers the response status once its body is read, or rejects (network, timeout). */
export function post(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      reject(new Error(`cannot post to ${target.protocol}`));
      return;
    }
    const client = target.protocol === 'https:' ? https : http;
    const req = client.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: agents[target.protocol],
      },
      (res) => {
        res.on('error', fail);
        res.on('end', () => {
          clearTimeout(timer);
          resolve(res.statusCode ?? 0);
        });
        res.resume();
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    function fail(err: Error) {
      clearTimeout(timer);
      reject(err);
    }
    req.on('error', fail);
    req.end(body);
  });
}
