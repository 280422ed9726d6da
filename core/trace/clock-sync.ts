/**
 * Clock offset between two contexts by ping/pong (docs/benchmarks.md, "What the user hears"): `performance.now()`
 * starts at a different origin in each document, so stamps from two contexts cannot be subtracted as they are. A ping
 * leaves at `sentAt` (local clock), the other side answers with its own clock `remoteAt`, the pong arrives at
 * `receivedAt`. Assuming the two legs take equally long, remote = local + offset with
 * offset = remoteAt − (sentAt + receivedAt) / 2, wrong by at most half the round trip; the ping with the smallest
 * round trip gives the tightest bound, so that one is kept.
 */
export interface ClockEstimate {
  /** remote clock = local clock + offsetMs */
  offsetMs: number;
  /** Round trip of the ping this estimate came from: the estimate is within ±rttMs / 2. */
  rttMs: number;
}

export function estimateFromPong(sentAt: number, remoteAt: number, receivedAt: number): ClockEstimate {
  return { offsetMs: remoteAt - (sentAt + receivedAt) / 2, rttMs: receivedAt - sentAt };
}

/** The better of two estimates: the smaller round trip. */
export function better(a: ClockEstimate | null, b: ClockEstimate): ClockEstimate {
  return a === null || b.rttMs < a.rttMs ? b : a;
}

/** The pinging side: numbers its pings, matches pongs to them and keeps the minimum-round-trip estimate. */
export class ClockSync {
  private nextId = 1;
  private readonly sent = new Map<number, number>();
  best: ClockEstimate | null = null;

  /** A new ping to send, stamped with the local clock. */
  ping(now: number): { id: number; sentAt: number } {
    const id = this.nextId++;
    this.sent.set(id, now);
    // Pongs that never came back are forgotten after a while, so the map stays small.
    if (this.sent.size > 64) this.sent.delete(this.sent.keys().next().value as number);
    return { id, sentAt: now };
  }

  /** A pong arrived; true when it improved the estimate. Unknown or repeated pongs are ignored. */
  pong(id: number, remoteAt: number, receivedAt: number): boolean {
    const sentAt = this.sent.get(id);
    if (sentAt === undefined) return false;
    this.sent.delete(id);
    const previous = this.best;
    this.best = better(previous, estimateFromPong(sentAt, remoteAt, receivedAt));
    return this.best !== previous;
  }
}
