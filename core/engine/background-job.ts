import type { BackgroundTask } from './types';

/**
 * Slow tool work (a weather or Wikipedia look-up) that runs while the conversation goes on. At most one at a time;
 * its result waits to be spoken at the next silence. It has its own AbortController: it outlives the turn that
 * started it (the holding line ends that turn) and ends only when the mic is turned off.
 */
export class BackgroundJob {
  private readonly controller = new AbortController();
  private resultValue: string | null = null;
  /** The result is written from a web page (BackgroundTask.fromPage). */
  readonly fromPage: boolean;

  constructor(task: BackgroundTask, onResult: () => void, onFailure: () => void) {
    this.fromPage = task.fromPage === true;
    task.run(this.controller.signal).then(
      (result) => {
        if (this.controller.signal.aborted) return;
        this.resultValue = result;
        onResult();
      },
      () => {
        if (!this.controller.signal.aborted) onFailure();
      },
    );
  }

  /** The line to speak once nothing else is said; null while the task runs. */
  get result(): string | null {
    return this.resultValue;
  }

  abort(): void {
    this.controller.abort();
  }
}
