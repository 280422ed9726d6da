/** A stand-in Worker for client tests: records what it is sent; the test answers for it. Every instance is kept. */
export class FakeWorker<E> {
  static made: FakeWorker<unknown>[] = [];
  sent: Array<Record<string, unknown>> = [];
  terminated = false;
  onmessage: ((e: MessageEvent) => void) | null = null;
  onerror: ((e: ErrorEvent) => void) | null = null;
  constructor() {
    FakeWorker.made.push(this as FakeWorker<unknown>);
  }
  postMessage(m: Record<string, unknown>): void {
    this.sent.push(m);
  }
  terminate(): void {
    this.terminated = true;
  }
  answer(e: E): void {
    this.onmessage?.({ data: e } as MessageEvent);
  }
  /** The id of the last request of `type` this worker was sent (what a real worker echoes in its reply). */
  idOf(type: string): string {
    const m = [...this.sent].reverse().find((x) => x.type === type);
    if (!m || typeof m.requestId !== 'string') throw new Error(`no ${type} request with an id was sent`);
    return m.requestId;
  }
  /** Answers the last request of `type` with `event`, echoing its request id. */
  reply(type: string, event: E extends unknown ? Omit<E, 'requestId'> : never): void {
    this.answer({ ...event, requestId: this.idOf(type) } as E);
  }
  crash(message: string): void {
    this.onerror?.({ message } as ErrorEvent);
  }
}
