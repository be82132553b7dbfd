// What an agent remembers between requests: the delays sites asked for, and copies of pages it
// may serve when a site fails. One small interface, so a process, a disk or a fleet can hold it.
import { LRUCache } from 'lru-cache';
import type { EnvelopeError } from '../../generated/types.js';

/** A site's request to wait: until when (ms since the epoch, on the clock of the client that learnt it) and the error that said so. */
export interface Backoff {
  readonly until: number;
  readonly error: EnvelopeError;
}

/** A copy of a successful GET response. */
export interface CachedCopy {
  readonly url: string;
  readonly status: number;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: string;
  /** When the copy was received, ms since the epoch, less the Age the response already had. */
  readonly storedAt: number;
}

/**
 * Where clients and fetchers keep what they learnt. Every method may be synchronous or return a
 * promise. Implementations expire backoffs at `until` and bound what copies they keep.
 */
export interface Store {
  getBackoff(key: string): Promise<Backoff | undefined> | Backoff | undefined;
  setBackoff(key: string, backoff: Backoff): Promise<void> | void;
  getCopy(key: string): Promise<CachedCopy | undefined> | CachedCopy | undefined;
  setCopy(key: string, copy: CachedCopy): Promise<void> | void;
  deleteCopy(key: string): Promise<void> | void;
}

/** Options of createMemoryStore. */
export interface MemoryStoreOptions {
  /** The most bytes of cached copies to keep; the least recently used go first. @default 50 MiB */
  readonly maxBytes?: number;
  /** The most origins whose backoff to remember. @default 10_000 */
  readonly maxBackoffs?: number;
  /** The clock, ms since the epoch. @default Date.now */
  readonly now?: () => number;
}

/** The approximate memory a copy takes: UTF-16 text plus headers. */
export function copySize(copy: CachedCopy): number {
  let size = 2 * (copy.body.length + copy.url.length) + 64;
  for (const [name, value] of copy.headers) size += 2 * (name.length + value.length);
  return size;
}

/**
 * A store in this process's memory, bounded by bytes (least recently used copies go first).
 * @example const store = createMemoryStore({ maxBytes: 10 * 1024 * 1024 });
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): Store {
  const now = options.now ?? Date.now;
  const copies = new LRUCache<string, CachedCopy>({ maxSize: options.maxBytes ?? 50 * 1024 * 1024, sizeCalculation: (c) => Math.max(1, copySize(c)) });
  const backoffs = new LRUCache<string, Backoff>({ max: options.maxBackoffs ?? 10_000 });
  return {
    getBackoff(key) {
      const backoff = backoffs.get(key);
      if (backoff && backoff.until <= now()) {
        backoffs.delete(key);
        return undefined;
      }
      return backoff;
    },
    setBackoff(key, backoff) {
      const current = backoffs.get(key);
      // A later deadline wins: two workers that learnt two delays both honour the longer.
      if (!current || current.until < backoff.until) backoffs.set(key, backoff);
    },
    getCopy: (key) => copies.get(key),
    setCopy(key, copy) {
      copies.set(key, copy);
    },
    deleteCopy(key) {
      copies.delete(key);
    },
  };
}

let shared: Store | undefined;

/** The process-wide store that clients and fetchers use when given none. */
export function defaultStore(): Store {
  shared ??= createMemoryStore();
  return shared;
}
