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
}
