/** Contracts between the duplex engine and the stages, playback and UI around it. */
import type { FactMemory } from '../memory/fact-memory';
import type { SentenceAudio } from './heard-text';
import type { CancelReason } from './turn';

/** Monotonic milliseconds (performance.now() in the browser, a manual clock in tests). */
export interface Clock {
  now(): number;
  /** Wall-clock date for the prompt's "current time"; optional so tests can leave it out. */
  date?(): Date;
}

export interface EngineOptions {
  clock: Clock;
  stages: EngineStages;
  memory?: FactMemory;
  timeZone?: string;
  /** Start the ASR (and LLM) at the tentative endpoint. On by default; benches turn it off to compare. */
  speculate?: boolean;
  /**
   * Put before every turn id. Each engine numbers its turns from 1, and the side panel remembers stopped turns by id
   * across offscreen documents: the document gives its engine a prefix of its own, so a new document's turns never
   * carry the ids of the last one's (whose stopped audio the panel drops).
   */
  turnIdPrefix?: string;
}

/** One entry of the conversation history the engine keeps: who spoke, and the words (as heard or as spoken). */
export interface HistoryMessage {
  role: 'user' | 'assistant';
  text: string;
  /**
   * The words were written from a web page (a page answer): untrusted, so a later prompt quotes them as data and
   * offers no tools (docs/security.md, "Trust boundaries").
   */
  fromPage?: true;
}

export interface Transcript {
  text: string;
  /** 0..1, higher is surer (e.g. exp of the mean token log-probability). */
  confidence: number;
  /**
   * The recognizer's own tokens for this text, opaque to the engine: given back as the draft of a later transcript of
   * the same growing clip, they let it decode only the new part (docs/turn-taking.md, "ASR drafts").
   */
  draft?: readonly number[];
  /** Tokens of the draft it was given that the recognizer kept (0 or absent without one). */
  draftAccepted?: number;
}

export interface UserTurn {
  turnId: string;
  text: string;
  history: HistoryMessage[];
  /** Remembered facts relevant to this turn, as prompt sentences. */
  memory: string[];
  /** Local date and time, e.g. "Tuesday 3 March 2026, 14:05 (Europe/Lisbon)". */
  localTime: string;
  /** A background task is already running, so tools must not start another. */
  backgroundBusy: boolean;
}

/** Slow work (a tool look-up) that runs while the conversation continues. */
export interface BackgroundTask {
  /** Spoken at once, e.g. "Let me check the weather." */
  holdingLine: string;
  /** Resolves to the line to speak when the user is next silent. */
  run(signal: AbortSignal): Promise<string>;
  /** The line is written from a web page's text: it is kept in the history marked `fromPage`. */
  fromPage?: boolean;
}

export interface SpeakMeta {
  turnId: string;
  /** 0-based sentence index within the turn's reply. */
  index: number;
}

export interface EngineStages {
  /** `draft`: the `draft` of an earlier transcript of the start of the same clip, when there is one. */
  transcribe(pcm16k: Float32Array, signal: AbortSignal, draft?: readonly number[]): Promise<Transcript>;
  respond(turn: UserTurn, signal: AbortSignal): AsyncIterable<string>;
  /** Hand one sentence to TTS + playback; resolve once it is synthesised and queued (not when it has played). */
  speak(sentence: string, signal: AbortSignal, meta: SpeakMeta): Promise<void>;
  /**
   * Every sentence of this turn's reply has been handed to `speak`: playback may end as soon as the queued audio has
   * played (instead of waiting for silence to prove it).
   */
  audioComplete?(turnId: string): void;
  /**
   * P(the user has finished their turn), from the sound of the turn so far (an end-of-turn model such as Smart Turn).
   * Optional: without it the endpoint follows silence and the speculative transcript's wording.
   */
  /**
   * True when transcribing while the user speaks is cheap enough to do (the speech models run on the GPU): ASR
   * drafts (core/engine/asr-drafts.ts). Absent: no drafts.
   */
  draftsAffordable?(): boolean;
  endOfTurn?(pcm16k: Float32Array, signal: AbortSignal): Promise<number>;
  /** Decide whether a turn is slow tool work. Return null to answer with the LLM. */
  route?(turn: UserTurn): BackgroundTask | null;
  /**
   * The turn's sentences as their audio was handed to the player, each with its audio length: maps the played time
   * the player reports after an interruption to the words heard (core/engine/heard-text.ts). Optional: without it an
   * interrupted reply is remembered as the text handed to TTS.
   */
  playedSentences?(turnId: string): readonly SentenceAudio[];
  /**
   * A reply's audio as handed to the player, 16 kHz (core/engine/reply-audio.ts): without `range` its newest seconds,
   * what the microphone after the reply is matched against (docs/echo.md, "Matching the reply's audio"); with it, that
   * stretch of the reply (seconds of its audio), what a burst over the reply is matched against.
   */
  replyAudio?(turnId: string, range?: { fromSeconds: number; toSeconds: number }): Float32Array | null;
}

/** One 32 ms mic frame with its Silero probability. */
export interface MicFrame {
  pcm: Float32Array;
  prob: number;
  /**
   * The same frame from the unprocessed microphone (no echo canceller): its RMS and Silero's P(speech) on it. The echo
   * handling (barge gate, echo path, the hold after a reply) uses it where present (docs/echo.md, "The unprocessed
   * microphone"); turn-taking and speech recognition use the processed `pcm`. `prob` is read only over a reply
   * (`DuplexEngine.listensOverReply`): the feed leaves it out otherwise, and when it is behind real time.
   */
  raw?: { rms: number; prob?: number };
  /** When its last sample was captured, on the engine's clock; absent in tests that feed frames as they happen. */
  capturedAt?: number;
}

/** Why an utterance right after a reply got no echo likeness (core/engine/echo-path.ts `likeness`). */
export type EchoUnjudged = 'no-path' | 'no-playback' | 'short' | 'inaudible' | 'flat';

/** What the side panel reports about playback. `turnId` lets late events of an aborted reply be ignored. */
export type PlaybackEvent =
  | { type: 'started'; turnId: string }
  /** `at`: when the level is heard from the speakers, on the engine's clock, when the panel said (else: on arrival). */
  | { type: 'level'; rms: number; at?: number }
  /**
   * `interrupted`: the player cut the audio (a stop) rather than playing it to its end. `playedMs`: how much of the
   * turn's audio the player rendered up to then (its own samples, not gaps between them), when it knows.
   * `audioInFlight`: the player ran dry before all of the turn's audio reached it; more of it will play (docs/echo.md,
   * "A drain is not the end").
   */
  | { type: 'ended'; turnId: string; interrupted?: boolean; playedMs?: number; audioInFlight?: boolean };

/** What the engine is doing, as the UI, the avatar and the status line show it: the one definition. */
export const ENGINE_STATES = ['idle', 'listening', 'thinking', 'speaking'] as const;
export type EngineState = (typeof ENGINE_STATES)[number];

/** The typed fields each stage of a turn carries (besides its turn id and time). */
export interface TurnStageFields {
  'speech-start': {
    barge?: boolean;
    beforeAudio?: boolean;
    /** Diagnostics: capture → engine delay of the frame, time since the last playback level, the barge gate. */
    lagMs?: number;
    sinceAudibleMs?: number;
    levelGapMs?: number;
    micRms?: number;
    thresholdRms?: number;
    coupling?: number;
    echoDelayMs?: number;
    echoCoupling?: number;
    echoCorrelation?: number;
    /** After a reply: the echo the unprocessed track's path expected at the onset (`heldByEcho`'s `released`). */
    releasedEchoRms?: number;
  };
  'tentative-endpoint': { silenceMs: number };
  /** The end-of-turn model answered for this pause: P(complete) and how long after the pause began. */
  'turn-check': { probability: number; silenceMs: number };
  'speculation-discarded': Record<never, never>;
  'end-of-speech': Record<never, never>;
  /**
   * For an utterance opened right after a reply (docs/echo.md): `echoLikeness`, how much it followed the reply's
   * envelope, at `echoEndLagMs` (its end after the playback's); `echoUnjudged`, why there is no likeness;
   * `echoScanR` at `echoScanLagMs`, the best r at any lag (trace only: EchoLikeness.scan).
   */
  endpoint: {
    forced: boolean;
    silenceMs: number;
    echoLikeness?: number;
    echoEndLagMs?: number;
    echoUnjudged?: EchoUnjudged;
    echoScanR?: number;
    echoScanLagMs?: number;
    /** The reply's audio found in the utterance's first second, and how far its speech ran past that echo's end. */
    echoMatchHead?: number;
    echoMatchOverrunMs?: number;
  };
  /** A draft transcription while the user spoke (core/engine/asr-drafts.ts); `slow`: drafts are off from now on. */
  'asr-draft': { ms: number; draftTokens: number; draftAccepted: number; slow: boolean };
  /** `draftTokens`: the length of the draft it was given (ASR drafts), 0 without one. */
  'asr-start': { speculative: boolean; draftTokens: number };
  /** The final transcript of the user's words arrived (its text travels only as a caption). */
  transcript: { speculative: boolean; draftAccepted: number };
  'llm-start': { speculative: boolean };
  'first-token': Record<never, never>;
  'first-speak': Record<never, never>;
  speak: { index: number; chars: number };
  /** The side panel started playing the reply: the user hears it. */
  'first-audio': Record<never, never>;
  /** Every sentence of the reply was handed to TTS; playback ends when the queued audio has played. */
  'audio-complete': Record<never, never>;
  merge: { afterEndpointMs: number };
  /** Speech over the reply held it; `onsetMs` ago it began. The reply goes on once it is decided a backchannel. */
  /** `unprocessedTrack`: which microphone track's gate heard it (barge-tracks.ts), where both gate a barge-in. */
  /** `bothTracks`: both tracks' gates heard the run, which held the reply before either's own `bargeFrames`. */
  /** `lagMs`: capture → engine of the frame that held the reply (a feed behind real time decides late). */
  'barge-tentative': { onsetMs: number; lagMs?: number; unprocessedTrack?: boolean; bothTracks?: boolean };
  /** That speech stopped before it counted as an interruption (a backchannel): the reply goes on. */
  'barge-released': { voicedFrames: number; echoScore?: number };
  'barge-onset': Record<never, never>;
  /** `byWords`: 1 when a short burst was decided by what ASR heard in it, 0 when the speech lasted long enough. */
  'barge-in': { latencyMs: number; byWords: number; echoScore?: number };
  /** `likeness`: for an echo suspect, how much it followed the reply's envelope (docs/echo.md). */
  discarded: { reason: 'noise' | 'empty' | 'own-echo'; voicedFrames?: number; likeness?: number };
  clarify: { confidence: number };
  'holding-line': Record<never, never>;
  'background-start': Record<never, never>;
  'background-done': Record<never, never>;
  'background-delivered': Record<never, never>;
  degenerate: { spokenSentences: number };
  watchdog: { stalledMs: number };
  /**
   * The reply's playback ended: the echo path as learned then (docs/echo.md), and the loudest voiced microphone frame
   * over the barge gate during the reply (above 1 would have been a barge candidate).
   */
  'echo-path': {
    delayMs?: number;
    coupling?: number;
    correlation?: number;
    peakOverGate: number;
    /** Voiced frames over the gate during the reply, and the longest onset run they made (bridged gaps included). */
    overGateFrames?: number;
    longestRun?: number;
    /** Frames the VAD called speech under the gate, and frames over the gate it did not: what kept a run short. */
    voicedUnderGateFrames?: number;
    loudUnvoicedFrames?: number;
    /** The level the residual sustained over an onset run in this reply, and the gate's floor in force. */
    residualRunRms?: number;
    /** The same per window of `residualWindowFrames`: the second and fourth loudest window's (0: fewer windows). */
    residualRank2Rms?: number;
    residualRank4Rms?: number;
    floorRms?: number;
    /** Speech cut the reply before this one: the processed gate's candidates needed the unprocessed floor (barge-tracks.ts). */
    followsCut?: boolean;
    /** The unprocessed track's own barge gate, where it has one (barge-tracks.ts): as the fields above. */
    rawPeakOverGate?: number;
    rawLongestRun?: number;
    rawVoicedUnderGateFrames?: number;
    rawResidualRunRms?: number;
    rawResidualRank2Rms?: number;
    rawResidualRank4Rms?: number;
    rawFloorRms?: number;
    /** Frames both tracks' gates took for speech while both floors held (barge-tracks.ts `JointRun`), and their longest run. */
    jointFrames?: number;
    jointLongestRun?: number;
  };
  /** Terminal: exactly one of done, failed, interrupted per turn. */
  done: Record<never, never>;
  failed: Record<never, never>;
  interrupted: { reason: CancelReason };
}

export type TurnStage = keyof TurnStageFields;

/** One stage of one turn: what the UI, the avatar, the camera scheduler and the benchmarks subscribe to. */
export type TurnEventOf<S extends TurnStage> = { type: 'turn'; stage: S; turnId: string; at: number } & TurnStageFields[S];
export type TurnEvent = { [S in TurnStage]: TurnEventOf<S> }[TurnStage];

export type EngineEvent =
  | { type: 'state'; state: EngineState; at: number }
  | {
      type: 'caption';
      role: 'user' | 'assistant';
      text: string;
      final: boolean;
      turnId: string;
      at: number;
      /** On the user line of a merged continuation: the turn whose partial line this one replaces. */
      replaces?: string;
    }
  | TurnEvent;

export type EngineListener = (event: EngineEvent) => void;

export function isAbortError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';
}
