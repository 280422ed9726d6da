/**
 * The one request/reply client every worker of the extension is driven through (speech/LLM/vision model worker,
 * Pocket TTS worker, vision port). Each request gets a fresh `requestId`; the worker echoes it on every event that
 * belongs to that request, so replies find their request however many are in flight: a streamed event goes to the
 * request's `onEvent`, a final one settles it, an `error` event with its id rejects it. When the worker dies or is
 * replaced, every pending request is rejected at once (none is left waiting forever). Events without a request id
 * (status, progress, verdicts) go to the client's `onEvent` listener, as every event does after routing.
 */

/** What the client needs of a Worker (or a MessagePort wrapper, or a test double). */
export interface WorkerLike {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  onmessage: ((event: MessageEvent) => void) | null;
  onerror?: ((event: ErrorEvent) => void) | null;
  terminate(): void;
}

type Typed = { type: string };
type WithRequestId = { requestId?: string };
/** A request as callers write it: without the id the client assigns. */
export type Unaddressed<R> = R extends unknown ? Omit<R, 'requestId'> : never;

interface Pending<E> {
  final: readonly string[];
  resolve: (event: E) => void;
  reject: (error: Error) => void;
  onEvent?: ((event: E) => void) | undefined;
}

export interface RequestOptions<E> {
  transfer?: Transferable[];
  /** Events of this request before its final one (LLM deltas, audio frames). */
  onEvent?: (event: E) => void;
}

export interface WorkerClientOptions<R, E> {
  /** Used in crash messages ("the voice worker crashed: …"). */
  name: string;
  /** The error an `error` event stands for (its code and message), or null when the event is not an error. */
  errorOf: (event: E) => Error | null;
  /** A message every new worker gets first (the first one and each replacement), e.g. the current tunables. */
  greeting?: () => R | null;
}

export class WorkerClient<R extends Typed & WithRequestId, E extends Typed & WithRequestId> {
  private readonly pending = new Map<string, Pending<E>>();
  private seq = 0;
  private worker: WorkerLike;
  /** Every event, after it was routed to its request (status lines, progress, verdicts, tests). */
  onEvent: ((event: E) => void) | null = null;

  constructor(
    private readonly spawnWorker: () => WorkerLike,
    private readonly options: WorkerClientOptions<R, E>,
  ) {
    this.worker = this.spawn();
  }

  /** Requests still waiting for their final event. */
  get inFlight(): number {
    return this.pending.size;
  }

  /**
   * Sends `message` with a new request id; resolves with the first event of a `final` type that carries that id,
   * rejects with an `error` event that carries it or when the worker goes away.
   */
  request<T extends E['type']>(
    message: Unaddressed<R>,
    final: readonly T[],
    options: RequestOptions<E> = {},
  ): { requestId: string; reply: Promise<Extract<E, { type: T }>> } {
    const requestId = `${message.type}-${++this.seq}`;
    const reply = new Promise<Extract<E, { type: T }>>((resolve, reject) => {
      this.pending.set(requestId, { final, resolve: resolve as (e: E) => void, reject, onEvent: options.onEvent });
    });
    this.worker.postMessage({ ...message, requestId }, options.transfer ?? []);
    return { requestId, reply };
  }

  /** A message that expects no reply (cancel, reset, fault injection). */
  post(message: R, transfer: Transferable[] = []): void {
    this.worker.postMessage(message, transfer);
  }

  /** Stops waiting for one request (its caller gave up); a late reply is then ignored. */
  forget(requestId: string): void {
    this.pending.delete(requestId);
  }

  /** Terminates the worker and starts a new one; every pending request is rejected with `reason`. */
  replace(reason: Error): void {
    const old = this.worker;
    this.worker = this.spawn();
    old.terminate();
    this.failAll(reason);
  }

  terminate(reason = new Error(`the ${this.options.name} was closed`)): void {
    this.worker.terminate();
    this.failAll(reason);
  }

  private spawn(): WorkerLike {
    const worker = this.spawnWorker();
    worker.onmessage = (e: MessageEvent) => this.receive(worker, e.data as E);
    worker.onerror = (e: ErrorEvent) => {
      if (worker === this.worker) this.failAll(new Error(`the ${this.options.name} crashed: ${e.message}`));
    };
    const greeting = this.options.greeting?.();
    if (greeting) worker.postMessage(greeting, []);
    return worker;
  }

  private receive(from: WorkerLike, event: E): void {
    if (from !== this.worker) return; // a replaced worker's last words belong to requests already failed
    const id = event.requestId;
    const waiter = id === undefined ? undefined : this.pending.get(id);
    if (waiter && id !== undefined) {
      const error = this.options.errorOf(event);
      if (error) {
        this.pending.delete(id);
        waiter.reject(error);
      } else if (waiter.final.includes(event.type)) {
        this.pending.delete(id);
        waiter.resolve(event);
      } else waiter.onEvent?.(event);
    }
    this.onEvent?.(event);
  }

  private failAll(error: Error): void {
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const w of waiting) w.reject(error);
  }
}
