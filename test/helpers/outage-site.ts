// outageSite, for bench/fleet.ts's outage part: an in-process node:http server on 127.0.0.1 whose
// mode the bench switches while a fleet calls it. `healthy` answers every request 200 with a small
// JSON body; `down` answers every request 500 with a small JSON body and no Retry-After, as an app
// behind a proxy does when its database is gone; `random` fails each request 500 with probability
// `failureRate` (default 0.3), else 200. It records every arrival (when it came, on the host clock
// the workers read too, and the status it was answered with), so the bench can count the calls in
// any span of time.
import { serve, type TestServer } from './server.js';

/** This host's clock with sub-ms resolution, as test/helpers/fleet.ts and its workers read it. */
const hostNow = (): number => performance.timeOrigin + performance.now();

export type OutageMode = 'healthy' | 'down' | 'random';

/** One request the site received. */
export interface OutageArrival {
  /** When it arrived, host clock (performance.timeOrigin + performance.now()). */
  readonly at: number;
  /** The status it was answered with, decided at arrival by the mode then. */
  readonly status: number;
}

export interface OutageSite extends TestServer {
  /** Every request, in order of arrival. */
  readonly arrivals: readonly OutageArrival[];
  /** The mode now. */
  mode(): OutageMode;
  /** Switches the mode; answers the moment of the switch, host clock. Requests arriving from then on get the new mode's answer. */
  setMode(mode: OutageMode): number;
  /** Requests that arrived in [from, to), host clock. */
  callsBetween(from: number, to: number): number;
  /** Arrivals answered with `status`. */
  answered(status: number): number;
}

const HEALTHY_BODY = JSON.stringify({ ok: true, items: [] });
const DOWN_BODY = JSON.stringify({ message: 'Internal Server Error' });

/** A loopback site in `mode` (default healthy); `failureRate` is the share of requests `random` fails. */
export async function outageSite({ mode = 'healthy', failureRate = 0.3 }: { mode?: OutageMode; failureRate?: number } = {}): Promise<OutageSite> {
  if (!(failureRate >= 0 && failureRate <= 1)) throw new RangeError(`outageSite: failureRate must be between 0 and 1, not ${failureRate}`);
  const arrivals: OutageArrival[] = [];
  let current: OutageMode = mode;
  const server = await serve((req, res) => {
    const at = hostNow();
    const fails = current === 'down' || (current === 'random' && Math.random() < failureRate);
    const status = fails ? 500 : 200;
    arrivals.push({ at, status });
    // The request body, if any, is drained so the connection can be kept alive.
    req.resume();
    const body = fails ? DOWN_BODY : HEALTHY_BODY;
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }).end(body);
  });
  return Object.assign(server, {
    arrivals,
    mode: () => current,
    setMode: (next: OutageMode): number => {
      current = next;
      return hostNow();
    },
    callsBetween: (from: number, to: number): number => {
      let count = 0;
      for (const a of arrivals) if (a.at >= from && a.at < to) count += 1;
      return count;
    },
    answered: (status: number): number => arrivals.filter((a) => a.status === status).length,
  });
}
