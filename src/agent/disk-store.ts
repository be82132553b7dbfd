// A Store on disk, in SQLite, for long-running agents whose memory should outlive the process.
// better-sqlite3 is an optional peer dependency: only this store loads it.
import type Database from 'better-sqlite3';
import type { EnvelopeError } from '../../generated/types.js';
import { checkRules, isCount, quote, type Checks } from '../core/refuse.js';
import { copySize, NOW_CHECK, waitKey, type Backoff, type CachedCopy, type KeptAnswer, type Learnt, type Store } from './store.js';

/** Options of createDiskStore. */
export interface DiskStoreOptions {
  /** The most bytes of copies to keep; the least recently used go first. @default 200 MiB */
  readonly maxBytes?: number;
  /** Copies older than this many seconds are dropped. @default 604800 (a week) */
  readonly maxAgeSeconds?: number;
  /** The clock, ms since the epoch. @default Date.now */
  readonly now?: () => number;
}

/** A disk store, which holds its database open until closed. */
export interface DiskStore extends Store {
  close(): void;
}

const DISK_CHECKS: Checks<DiskStoreOptions> = {
  maxBytes: [isCount, 'a whole number of bytes, 1 or more'],
  maxAgeSeconds: [(value) => typeof value === 'number' && value > 0 && value <= Number.MAX_SAFE_INTEGER, 'a number of seconds above 0'],
  now: NOW_CHECK,
};

/**
 * Opens (or creates) a SQLite file as a store. Needs the optional peer dependency better-sqlite3 12.
 * @example const store = await createDiskStore('/var/lib/my-agent/errors.db');
 */
export async function createDiskStore(file: string, options: DiskStoreOptions = {}): Promise<DiskStore> {
  if (typeof file !== 'string' || file === '') throw new TypeError(`createDiskStore: file must be the path of a SQLite file (got ${quote(file)})`);
  checkRules('createDiskStore', options, DISK_CHECKS);
  let open: typeof Database;
  try {
    open = (await import('better-sqlite3')).default;
  } catch (error) {
    throw new Error('createDiskStore needs better-sqlite3: npm install better-sqlite3@12', { cause: error });
  }
  const now = options.now ?? Date.now;
  const maxBytes = options.maxBytes ?? 200 * 1024 * 1024;
  const maxAgeMs = (options.maxAgeSeconds ?? 604_800) * 1000;
  const db = open(file);
  db.pragma('journal_mode = WAL');
  db.exec(`
    CREATE TABLE IF NOT EXISTS backoffs (key TEXT PRIMARY KEY, until INTEGER NOT NULL, error TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS copies (key TEXT PRIMARY KEY, copy TEXT NOT NULL, size INTEGER NOT NULL, stored_at INTEGER NOT NULL, used_at INTEGER NOT NULL);
    CREATE INDEX IF NOT EXISTS copies_used ON copies (used_at);
  `);
  const q = {
    getBackoff: db.prepare<[string, number], { until: number; error: string }>('SELECT until, error FROM backoffs WHERE key = ? AND until > ?'),
    dropBackoffs: db.prepare<[number]>('DELETE FROM backoffs WHERE until <= ?'),
    // A later deadline wins, as in the memory store.
    setBackoff: db.prepare<[string, number, string]>(
      'INSERT INTO backoffs (key, until, error) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET until = excluded.until, error = excluded.error WHERE excluded.until > backoffs.until',
    ),
    getCopy: db.prepare<[string, number], { copy: string }>('SELECT copy FROM copies WHERE key = ? AND stored_at >= ?'),
    touch: db.prepare<[number, string]>('UPDATE copies SET used_at = ? WHERE key = ?'),
    setCopy: db.prepare<[string, string, number, number, number]>(
      'INSERT INTO copies (key, copy, size, stored_at, used_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(key) DO UPDATE SET copy = excluded.copy, size = excluded.size, stored_at = excluded.stored_at, used_at = excluded.used_at',
    ),
    deleteCopy: db.prepare<[string]>('DELETE FROM copies WHERE key = ?'),
    dropOld: db.prepare<[number]>('DELETE FROM copies WHERE stored_at < ?'),
    total: db.prepare<[], { total: number | null }>('SELECT SUM(size) AS total FROM copies'),
    oldest: db.prepare<[], { key: string; size: number }>('SELECT key, size FROM copies ORDER BY used_at ASC LIMIT 1'),
  };
  const evict = db.transaction(() => {
    q.dropOld.run(now() - maxAgeMs);
    let total = q.total.get()?.total ?? 0;
    while (total > maxBytes) {
      const row = q.oldest.get();
      if (!row) break;
      q.deleteCopy.run(row.key);
      total -= row.size;
    }
  });
  return {
    getBackoff(key) {
      const row = q.getBackoff.get(key, now());
      if (!row) return undefined;
      // The error alone, or the error with the site's answer and where it was learnt.
      const kept = JSON.parse(row.error) as EnvelopeError | { error: EnvelopeError; answer?: KeptAnswer; learnt?: Learnt };
      return ('error' in kept && typeof kept.error === 'object' ? { until: row.until, ...kept } : { until: row.until, error: kept }) as Backoff;
    },
    setBackoff(key, backoff) {
      q.dropBackoffs.run(now());
      // A wait learnt on one path only is kept under that path's key (pathKey), as the memory store keeps it.
      const k = waitKey(key, backoff);
      const { answer, learnt } = backoff;
      q.setBackoff.run(k, backoff.until, JSON.stringify(answer || learnt ? { error: backoff.error, ...(answer ? { answer } : {}), ...(learnt ? { learnt } : {}) } : backoff.error));
    },
    getCopy(key) {
      const row = q.getCopy.get(key, now() - maxAgeMs);
      if (!row) return undefined;
      q.touch.run(now(), key);
      return JSON.parse(row.copy) as CachedCopy;
    },
    setCopy(key, copy) {
      q.setCopy.run(key, JSON.stringify(copy), copySize(copy), copy.storedAt, now());
      evict();
    },
    deleteCopy(key) {
      q.deleteCopy.run(key);
    },
    close() {
      db.close();
    },
  };
}
