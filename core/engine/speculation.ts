/**
 * A speculative turn: ASR (and, for a complete-sounding request, the LLM held unspoken) started in a pause before the
 * endpoint is decided (docs/turn-taking.md, "Speculation"). It becomes the turn at the endpoint or is discarded when
 * the user goes on.
 */
import { engineTunables as T } from '../tunables';
import type { ReplyRunner } from './reply-runner';
import type { Turn } from './turn';
import type { Transcript } from './types';

export interface Speculation {
  /** The turn the speculation will become at the endpoint; in phase 'listening' until then. */
  turn: Turn;
  transcript: Transcript | null;
  transcriptPromise: Promise<Transcript | null>;
  reply: ReplyRunner | null;
  replyText: string | null;
  replyController: AbortController | null;
  /** The held LLM start was considered (once per speculation, from `speculativeReplyMs` of silence). */
  triedReply: boolean;
  /** The utterance's voiced-frame count when its audio was taken; more means the transcript is stale. */
  voicedFrames: number;
}

/** A speculation for `turn` over audio holding `voicedFrames` voiced frames; nothing started yet. */
export function newSpeculation(turn: Turn, voicedFrames: number): Speculation {
  return {
    turn,
    transcript: null,
    transcriptPromise: Promise.resolve(null),
    reply: null,
    replyText: null,
    replyController: null,
    triedReply: false,
    voicedFrames,
  };
}

/**
 * Quiet after the last voiced frame from which the speculative ASR may start: `earlyTentativeEndpointMs` where ASR
 * drafts run (a hardware GPU, before the end-of-turn question), else `tentativeEndpointMs`.
 */
export function speculativeAsrQuietMs(draftsActive: boolean): number {
  return draftsActive ? Math.min(T.earlyTentativeEndpointMs, T.tentativeEndpointMs) : T.tentativeEndpointMs;
}
