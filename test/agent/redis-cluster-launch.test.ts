// The local Redis Cluster the cluster tests run on (test/helpers/redis-cluster.ts): three real
// masters on loopback that own every slot between them, reached through node-redis's createCluster,
// honouring hash tags and refusing a script across slots as a managed cluster would, and gone
// without a trace once stopped.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectCluster, startCluster, type TestCluster } from '../helpers/redis-cluster.js';

const portOf = (url: string): number => Number(new URL(url).port);

/** A client of one node alone, which answers MOVED for a key another node owns. */
async function node(url: string) {
  const client = createClient({ url, socket: { reconnectStrategy: false } });
  client.on('error', () => {});
  await client.connect();
  return client;
}

type Node = Awaited<ReturnType<typeof node>>;

/** Whether `port` of 127.0.0.1 can be listened on. */
const isFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** The command lines of the running redis-servers that serve `port` (Redis titles itself "redis-server 127.0.0.1:port [cluster]"); Linux only. */
function serversOn(port: number): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (command.includes('redis-server') && command.includes(`127.0.0.1:${port}`)) found.push(command);
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

describe('a local Redis Cluster (startCluster)', () => {
  let cluster: TestCluster;
  let client: Awaited<ReturnType<typeof connectCluster>>;
  let nodes: Node[] = [];
  beforeAll(async () => {
    cluster = await startCluster();
    client = await connectCluster(cluster);
    client.on('error', () => {});
    nodes = await Promise.all(cluster.urls.map(node));
  }, 60_000);
  afterAll(async () => {
    for (const n of nodes) n.destroy();
    client?.destroy();
    await cluster?.stop();
  });

  /** The port of the master that owns `key`, by the slots the first node reports. */
  async function ownerOf(key: string): Promise<number> {
    const slot = await nodes[0]!.clusterKeySlot(key);
    const range = (await nodes[0]!.clusterSlots()).find(({ from, to }) => from <= slot && slot <= to);
    return range!.master.port;
  }

  it('has three masters on loopback that own all 16384 slots between them, and every node says so', async () => {
    expect(cluster.urls).toHaveLength(3);
    for (const url of cluster.urls) expect(url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
    const ports = cluster.urls.map(portOf);

    const slots = await nodes[0]!.clusterSlots();
    expect(slots.reduce((sum, { from, to }) => sum + to - from + 1, 0)).toBe(16384);
    expect(new Set(slots.map(({ master }) => master.port))).toEqual(new Set(ports));
    // The addresses node-redis connects to are the ones the nodes announce: no nodeAddressMap needed.
    for (const { master, replicas } of slots) {
      expect(master.host).toBe('127.0.0.1');
      expect(replicas).toEqual([]);
    }

    for (const n of nodes) {
      const info = String(await n.clusterInfo());
      expect(info).toMatch(/^cluster_state:ok\r?$/m);
      expect(info).toMatch(/^cluster_slots_assigned:16384\r?$/m);
      expect(info).toMatch(/^cluster_size:3\r?$/m);
      expect(info).toMatch(/^cluster_known_nodes:3\r?$/m);
    }
  });

  it('writes and reads a key on each master through createCluster, each stored on the master that owns its slot', async () => {
    const ports = cluster.urls.map(portOf);
    const keys = new Map<number, string>();
    for (let i = 0; keys.size < ports.length; i += 1) {
      const key = `agent-errors-test:cluster-launch:${i}`;
      const owner = await ownerOf(key);
      if (!keys.has(owner)) keys.set(owner, key);
    }
    for (const [owner, key] of keys) {
      await client.set(key, `on ${owner}`);
      expect(await client.get(key)).toBe(`on ${owner}`);
      for (const [i, port] of ports.entries()) {
        if (port === owner) expect(await nodes[i]!.get(key)).toBe(`on ${owner}`);
        else await expect(nodes[i]!.get(key)).rejects.toThrow(new RegExp(`^MOVED \\d+ 127\\.0\\.0\\.1:${owner}$`));
      }
    }
    await client.del([...keys.values()].map((key) => key));
  });

  it('runs a script on two keys of one hash tag, and refuses one on two keys of different slots (CROSSSLOT)', async () => {
    const tagged = ['agent-errors-test:{x}:a', 'agent-errors-test:{x}:b'];
    const untagged = ['agent-errors-test:x:a', 'agent-errors-test:x:b'];
    const [t1, t2, u1, u2] = await Promise.all([...tagged, ...untagged].map((key) => nodes[0]!.clusterKeySlot(key)));
    expect(t1).toBe(t2);
    expect(u1).not.toBe(u2);

    const script = "redis.call('SET', KEYS[1], ARGV[1]); redis.call('SET', KEYS[2], ARGV[1]); return redis.call('MGET', KEYS[1], KEYS[2])";
    expect(await client.eval(script, { keys: tagged, arguments: ['both'] })).toEqual(['both', 'both']);
    await expect(client.eval(script, { keys: untagged, arguments: ['both'] })).rejects.toThrow(/CROSSSLOT/);
    expect(await client.exists(untagged[0]!)).toBe(0);
    await client.del(tagged);
  });

  it('kills one master as a crash would, leaving the others running', async () => {
    await expect(cluster.kill(3)).rejects.toThrow(RangeError);
    const killed = nodes.pop()!;
    killed.destroy();
    await cluster.kill(2);
    await expect(node(cluster.urls[2]!)).rejects.toThrow(/ECONNREFUSED/);
    for (const n of nodes) expect(await n.ping()).toBe('PONG');
  });

  it('stops every node: their ports and cluster bus ports are free again and no redis-server is left', async () => {
    const ports = cluster.urls.map(portOf);
    for (const n of nodes) n.destroy();
    nodes = [];
    client.destroy();
    await cluster.stop();
    for (const port of ports) {
      expect(await isFree(port)).toBe(true);
      expect(await isFree(port + 10_000)).toBe(true);
      if (existsSync('/proc/self/cmdline')) expect(serversOn(port)).toEqual([]);
    }
    await cluster.stop(); // twice is harmless (afterAll calls it again)
  });
});
