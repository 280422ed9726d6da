/** Contracts between the duplex engine and the stages, playback and UI around it. */

/** Monotonic milliseconds (performance.now() in the browser, a manual clock in tests). */
export interface Clock {
  now(): number;
  /** Wall-clock date for the prompt's "current time"; optional so tests can leave it out. */
  date?(): Date;
}

export interface ChatMessage {
  role: 'user' | 'assistant';
  text: string;
}

export interface Transcript {
  text: string;
  /** 0..1, higher is surer (e.g. exp of the mean token log-probability). */
  confidence: number;
}

export interface UserTurn {
  turnId: number;
  text: string;
  history: ChatMessage[];
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
}

export interface SpeakMeta {
  turnId: number;
  /** 0-based sentence index within the turn's reply. */
  index: number;
}

export interface EngineStages {
  transcribe(pcm16k: Float32Array, signal: AbortSignal): Promise<Transcript>;
  respond(turn: UserTurn, signal: AbortSignal): AsyncIterable<string>;
  /** Hand one sentence to TTS + playback; resolve once it is synthesised and queued (not when it has played). */
  speak(sentence: string, signal: AbortSignal, meta: SpeakMeta): Promise<void>;
  /**
   * Every sentence of this turn's reply has been handed to `speak`: playback may end as soon as the queued audio has
   * played (instead of waiting for silence to prove it).
   */
  audioComplete?(turnId: number): void;
  /** Decide whether a turn is slow tool work. Return null to answer with the LLM. */
  route?(turn: UserTurn): BackgroundTask | null;
}

/** One 32 ms mic frame with its Silero probability. */
export interface MicFrame {
  pcm: Float32Array;
  prob: number;
}

/** What the side panel reports about playback. `turnId` lets late events of an aborted reply be ignored. */
export type PlaybackEvent =
  { type: 'started'; turnId: number } | { type: 'level'; rms: number } | { type: 'ended'; turnId: number };

/** What the engine is doing, as the UI, the avatar and the status line show it: the one definition. */
export const ENGINE_STATES = ['idle', 'listening', 'thinking', 'speaking'] as const;
export type EngineState = (typeof ENGINE_STATES)[number];

export type MarkName =
  | 'speech-start'
  | 'tentative-endpoint'
  | 'speculation-discarded'
  | 'end-of-speech'
  | 'endpoint'
  | 'asr-start'
  | 'asr-done'
  | 'llm-start'
  | 'llm-first-delta'
  | 'first-speak'
  | 'speak'
  | 'playback-started'
  | 'reply-done'
  | 'merge'
  | 'barge-onset'
  | 'barge-in'
  | 'discarded'
  | 'clarify'
  | 'holding-line'
  | 'background-start'
  | 'background-done'
  | 'background-delivered'
  | 'degenerate'
  | 'watchdog';

export type MarkDetail = Record<string, string | number | boolean>;

export type EngineEvent =
  | { type: 'state'; state: EngineState; at: number }
  | { type: 'caption'; role: 'user' | 'assistant'; text: string; final: boolean; turnId: number; at: number }
  | { type: 'mark'; name: MarkName; at: number; turnId: number; detail?: MarkDetail };

export type EngineListener = (event: EngineEvent) => void;

export function isAbortError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';
}
