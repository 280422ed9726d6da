// What a turn does when the remote server fails. Principles:
// - an interruption (aborted) is the user's choice: say nothing, do nothing;
// - if part of the answer was already spoken, re-answering with another model would repeat and contradict it, so
//   the turn ends with the spoken error line instead;
// - otherwise, with "fall back to local model" on, the same turn is answered by the local model and the failure is
//   only shown (a caption notice), not spoken, because the user asked a question and wants its answer;
// - with fallback off, the avatar says the short error line so the user isn't left in silence.
// `RemoteAvailability` also remembers a dead server for a while so each turn doesn't wait out a timeout again.
import { remoteLlmTunables } from '../tunables';
import type { RemoteLlmError } from './errors';

export type FailureDecision =
  { action: 'stop' } | { action: 'fallback_local'; notice: string } | { action: 'end_turn'; say: string };

export function decideOnFailure(
  error: RemoteLlmError,
  ctx: { fallbackToLocal: boolean; alreadySpoke: boolean },
): FailureDecision {
  if (error.kind === 'aborted') return { action: 'stop' };
  if (ctx.alreadySpoke || !ctx.fallbackToLocal) return { action: 'end_turn', say: error.spoken };
  return { action: 'fallback_local', notice: `${error.spoken} Using the local model for now.` };
}

/** Which model should answer the next turn. `now` is injected (epoch ms). */
export class RemoteAvailability {
  private downSince: number | null = null;

  constructor(private readonly now: () => number) {}

  /** Unreachable and timeout say "the server is down"; HTTP errors and bad streams are per-request problems. */
  recordFailure(error: RemoteLlmError): void {
    if (error.kind === 'unreachable' || error.kind === 'timeout') this.downSince = this.now();
  }

  recordSuccess(): void {
    this.downSince = null;
  }

  /** 'remote' unless the server failed recently AND the user allows the local fallback (else we must try anyway). */
  chooseBackend(fallbackToLocal: boolean): 'remote' | 'local' {
    if (!fallbackToLocal || this.downSince === null) return 'remote';
    if (this.now() - this.downSince >= remoteLlmTunables.skipAfterFailureMs) {
      this.downSince = null;
      return 'remote';
    }
    return 'local';
  }
}
