// A real Redis Cluster for the tests: `masters` private redis-servers in cluster mode on free
// loopback ports, joined by `redis-cli --cluster create` (no replicas), in a temporary folder of its
// own, ready once every node says cluster_state:ok. The caller stops it, or kills one master to see
// what a crash does. Nodes announce 127.0.0.1, so node-redis's createCluster reaches every node from
// the addresses CLUSTER SLOTS gives it, with no nodeAddressMap.
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, createCluster } from 'redis';
import { redisCliPath } from '../../scripts/test-prerequisites.js';
import { exited, launch } from './redis.js';

export interface TestCluster {
  /** redis://127.0.0.1:port of each master, for node-redis createCluster({ rootNodes: urls.map((url) => ({ url })) }). */
  readonly urls: readonly string[];
  /** Stops every node and removes the temporary folder. */
  readonly stop: () => Promise<void>;
  /** SIGKILLs one master (index into urls), as a crash would. */
  readonly kill: (index: number) => Promise<void>;
}

/** A node's cluster bus listens on its port + 10000 (Redis's default cluster-port). */
const BUS_OFFSET = 10_000;
/**
 * Where node ports are drawn from: 10000-22767 puts both a port and its bus port (20000-32767) below
 * the ephemeral ranges of Linux (32768 up) and of macOS and Windows (49152 up), so neither collides
 * with freePort()'s ports nor with the outgoing connections of this or any other process.
 */
const PORTS = { from: 10_000, to: 22_767 };
/** How long the nodes may take to agree on cluster_state:ok after redis-cli created the cluster. */
const READY_TIMEOUT = 20_000;
/** How long redis-cli --cluster create may take (it polls once a second until the nodes agree). */
const CREATE_TIMEOUT = 30_000;
/** How many times a node is started on fresh ports when its ports were taken between the check and the start. */
const ATTEMPTS = 5;

/** Whether `port` of 127.0.0.1 can be listened on now. */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port whose bus port is free too, neither among `taken` (the ports of this cluster's other nodes and their buses). */
async function nodePort(taken: ReadonlySet<number>): Promise<number> {
  for (let tries = 0; tries < 200; tries += 1) {
    const port = PORTS.from + Math.floor(Math.random() * (PORTS.to - PORTS.from + 1));
    if (taken.has(port) || taken.has(port + BUS_OFFSET)) continue;
    if ((await isFree(port)) && (await isFree(port + BUS_OFFSET))) return port;
  }
  throw new Error(`no free pair of loopback ports P and P+${BUS_OFFSET} for a Redis Cluster node in ${PORTS.from}-${PORTS.to}`);
}

/** Starts one cluster node on free ports, drawing new ones when another process took them first. */
async function startNode(dir: string, taken: Set<number>): Promise<{ port: number; child: ChildProcess }> {
  for (let attempt = 1; ; attempt += 1) {
    const port = await nodePort(taken);
    const args = ['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`), '--cluster-node-timeout', '2000', '--dir', dir];
    try {
      const child = await launch(port, args);
      taken.add(port).add(port + BUS_OFFSET);
      return { port, child };
    } catch (error) {
      if (attempt >= ATTEMPTS || !/already in use/i.test(String(error))) throw error;
    }
  }
}

/** Runs redis-cli with `args`; rejects with its output when it fails or hangs. */
function redisCli(args: readonly string[], timeout: number): Promise<string> {
  const cli = redisCliPath();
  if (!cli) return Promise.reject(new Error('redis-cli is not installed: npx tsx scripts/test-prerequisites.ts says how to install it'));
  return new Promise((resolve, reject) => {
    // stdin is closed: were --cluster-yes ever ignored, the "type 'yes'" prompt would read EOF and fail rather than hang.
    const child = spawn(cli, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => void (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => void (out += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeout);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      // redis-cli colours its report even into a pipe; the error reads better without the escapes.
      const report = out.replace(/\x1b\[[0-9;]*m/g, '').trim();
      if (code === 0) resolve(report);
      else reject(new Error(`redis-cli ${args.join(' ')} ${signal ? `was killed (${signal}) after ${timeout} ms` : `exited with ${code}`}: ${report}`));
    });
  });
}

/** Resolves once every node's CLUSTER INFO says cluster_state:ok; rejects with what each said at the deadline. */
async function allOk(ports: readonly number[], timeout: number): Promise<void> {
  const clients = ports.map((port) => {
    const client = createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: false } });
    client.on('error', () => {});
    return client;
  });
  try {
    await Promise.all(clients.map((client) => client.connect()));
    const deadline = Date.now() + timeout;
    for (;;) {
      const infos = await Promise.all(clients.map(async (client) => String(await client.sendCommand(['CLUSTER', 'INFO']))));
      if (infos.every((info) => /^cluster_state:ok\r?$/m.test(info))) return;
      if (Date.now() > deadline) {
        const states = infos.map((info, i) => `${ports[i]}: ${/^cluster_state:(\w+)/m.exec(info)?.[1] ?? info.trim()}`).join(', ');
        throw new Error(`the Redis Cluster did not reach cluster_state:ok within ${timeout} ms (${states})`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    for (const client of clients) client.destroy();
  }
}

/** Starts a Redis Cluster of `masters` masters (3 at least, as Redis requires) and no replicas, every slot assigned and every node ready. */
export async function startCluster(masters = 3): Promise<TestCluster> {
  if (!Number.isInteger(masters) || masters < 3) throw new RangeError(`a Redis Cluster needs at least 3 masters, not ${masters}`);
  const dir = await mkdtemp(join(tmpdir(), 'agent-errors-redis-cluster-'));
  // launch() already kills each node when this process exits; this removes the folder too.
  const removeDir = (): void => rmSync(dir, { recursive: true, force: true });
  process.once('exit', removeDir);
  const nodes: { port: number; child: ChildProcess }[] = [];
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      await Promise.all(nodes.map(({ child }) => exited(child, 'SIGTERM')));
      await rm(dir, { recursive: true, force: true });
      process.off('exit', removeDir);
    })());
  try {
    const taken = new Set<number>();
    // One at a time, so that each node's ports are checked against those of the nodes before it.
    for (let i = 0; i < masters; i += 1) nodes.push(await startNode(dir, taken));
    const ports = nodes.map(({ port }) => port);
    await redisCli(['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '0', '--cluster-yes'], CREATE_TIMEOUT);
    await allOk(ports, READY_TIMEOUT);
  } catch (error) {
    await Promise.all(nodes.map(({ child }) => exited(child, 'SIGKILL')));
    await rm(dir, { recursive: true, force: true });
    process.off('exit', removeDir);
    throw error;
  }
  return {
    urls: nodes.map(({ port }) => `redis://127.0.0.1:${port}`),
    stop,
    kill: async (index) => {
      const node = nodes[index];
      if (!node) throw new RangeError(`no master ${index} in a cluster of ${nodes.length}`);
      await exited(node.child, 'SIGKILL');
    },
  };
}

/** A connected node-redis cluster client (createCluster) on `cluster`, errors left to the caller's listeners. */
export async function connectCluster(cluster: TestCluster) {
  return createCluster({
    rootNodes: cluster.urls.map((url) => ({ url })),
    defaults: { socket: { reconnectStrategy: (retries: number) => Math.min(50 * (retries + 1), 300) } },
  }).connect();
}
