// Run by test/site/express.test.ts in a process of its own: serves Express and node:http apps with
// AgentFriendly, answers agents' and browsers' successes and errors (asked with node:http, not
// fetch), then prints whether anything read the Headers global, whose first read loads node's fetch
// implementation (undici) into the server.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { agentFriendlyExpress } from '../../src/site/express.js';
import { agentFriendlyNode } from '../../src/site/node.js';

const untouched = (): boolean => typeof Object.getOwnPropertyDescriptor(globalThis, 'Headers')?.get === 'function';
const before = untouched();

const get = (port: number, path: string, accept: string): Promise<number> =>
  new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, headers: { accept } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    })
      .on('error', reject)
      .end();
  });

const app = express();
app.use(agentFriendlyExpress());
app.get('/ok', (_req, res) => void res.json({ ok: true }));
const servers: Server[] = [
  createServer(app),
  createServer(
    agentFriendlyNode((req, res) => {
      if (req.url !== '/ok') res.statusCode = 404;
      res.end(req.url === '/ok' ? 'ok' : 'Not found');
    }),
  ),
];
const statuses: number[] = [];
for (const server of servers) {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  for (const path of ['/ok', '/missing'])
    for (const accept of ['text/markdown, text/html, */*', 'application/problem+json', 'text/html']) statuses.push(await get(port, path, accept));
  await new Promise((resolve) => server.close(resolve));
}
process.stdout.write(JSON.stringify({ before, after: untouched(), statuses }));
