// The sender's acknowledgement times: what a provider waits for, as benches read it (`/_control/deliveries/acks`);
// and a held backlog, sent when released (`/_control/deliveries/hold`, `/release`).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WebhookSender } from './webhooks.ts';

let receiver: Server;
let base: string;

beforeAll(async () => {
  // /slow answers after 60 ms, /fail always fails, anything else at once.
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/fail') res.writeHead(500).end();
      else if (req.url === '/slow') setTimeout(() => res.writeHead(200).end(), 60);
      else res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => receiver.close(() => r())));

const hook = (path: string) => ({
  provider: 'shopify',
  shop: 's',
  topic: 't',
  url: `${base}${path}`,
  headers: {},
  body: '{}',
});

it('times each landed webhook, counts only those the receiver took, and answers those since a count', async () => {
  const sender = new WebhookSender({ maxAttempts: 2, retryDelayMs: 1 });
  sender.send(hook('/fast'));
  await sender.settled();
  const first = sender.acksSince(0);
  expect(first.count).toBe(1);

  sender.send(hook('/slow'));
  sender.send(hook('/fail'));
  await sender.settled();
  const later = sender.acksSince(first.count);
  // The failed one gave up after two attempts and is not an acknowledgement.
  expect(later.count).toBe(2);
  expect(later.ms).toHaveLength(1);
  expect(later.ms[0]).toBeGreaterThanOrEqual(55);
  expect(sender.acksSince(0).ms).toHaveLength(2);
  expect(sender.log.map((d) => d.status)).toEqual(['delivered', 'delivered', 'failed']);
});

it('holds deliveries until released, then sends every one that gathered', async () => {
  const sender = new WebhookSender({ maxAttempts: 1 });
  sender.hold();
  for (let i = 0; i < 5; i++) sender.send(hook('/fast'));
  await new Promise((r) => setTimeout(r, 50));
  expect(sender.acksSince(0).count).toBe(0);
  expect(sender.log.every((d) => d.status === 'pending' && d.attempts === 0)).toBe(true);
  expect(sender.release()).toBe(5);
  await sender.settled();
  expect(sender.acksSince(0).count).toBe(5);
  expect(sender.log.map((d) => d.status)).toEqual(Array(5).fill('delivered'));
});
