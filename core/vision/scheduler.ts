/**
 * The GPU priority rule for vision: speech always wins. Vision may grab and detect a frame only when
 *  - vision is on,
 *  - no speech stage is active (an open user utterance whose ASR is imminent, ASR, LLM, TTS, or reply playback, during
 *    which the LLM and TTS keep producing the next chunks), and none ended less than `resumeAfterSpeechMs` ago,
 *  - no detection is already in flight (one at a time; frames are never queued),
 *  - the next frame is due (fast cadence while searching for a person, slow once one is established).
 * A grabbed frame is re-checked just before the detector would start: if speech started since it was grabbed, or it
 * is older than `maxFrameAgeMs`, it is dropped (stale) rather than run late. Because a detection only starts when no
 * utterance is open, and an endpoint needs hundreds of ms of silence after speech starts, a short detection ends before
 * ASR needs the GPU: vision never delays a reply (docs/vision.md has the timing argument).
 * Pure; the clock is injected.
 */
import { visionTunables } from '../tunables';

export type SpeechStage = 'utterance' | 'asr' | 'llm' | 'tts' | 'playback';

export type AdmitResult = { run: true } | { run: false; reason: 'off' | 'speech' | 'stale' | 'busy' };

export interface VisionSchedulerStats {
  ran: number;
  droppedStale: number;
  droppedSpeech: number;
  droppedBusy: number;
}

export class VisionScheduler {
  private enabled = false;
  private readonly activeStages = new Set<SpeechStage>();
  /** When the last speech stage ended (or -Infinity). */
  private speechEndedAt = Number.NEGATIVE_INFINITY;
  /** When any speech stage last started; frames grabbed before it are stale. */
  private speechStartedAt = Number.NEGATIVE_INFINITY;
  private inFlightSince: number | null = null;
  private nextDue = 0;
  private readonly counters: VisionSchedulerStats = { ran: 0, droppedStale: 0, droppedSpeech: 0, droppedBusy: 0 };

  constructor(private readonly now: () => number) {}

  enable(): void {
    if (this.enabled) return;
    this.enabled = true;
    this.nextDue = this.now();
  }

  /** Vision off: nothing new starts; a detection already in flight finishes but its result should be discarded. */
  disable(): void {
    this.enabled = false;
    this.inFlightSince = null;
  }

  get isEnabled(): boolean {
    return this.enabled;
  }

  /** The engine reports every speech stage start/end. Idempotent per stage. */
  setStage(stage: SpeechStage, active: boolean): void {
    const now = this.now();
    if (active) {
      if (!this.activeStages.has(stage)) this.speechStartedAt = now;
      this.activeStages.add(stage);
    } else if (this.activeStages.delete(stage) && this.activeStages.size === 0) {
      this.speechEndedAt = now;
    }
  }

  /** True while speech owns the GPU, including the short grace period after it ends. */
  speechHoldsGpu(): boolean {
    return this.activeStages.size > 0 || this.now() - this.speechEndedAt < visionTunables.resumeAfterSpeechMs;
  }

  get detecting(): boolean {
    return this.inFlightSince !== null;
  }

  /** Should the caller grab a frame now? */
  wantFrame(): boolean {
    return this.enabled && this.inFlightSince === null && !this.speechHoldsGpu() && this.now() >= this.nextDue;
  }

  /**
   * When the caller should ask again (for its timer). While speech holds the GPU this is a retry poll; the engine's
   * stage-end call is the real wake-up.
   */
  nextCheckAt(): number {
    const now = this.now();
    if (!this.enabled) return Number.POSITIVE_INFINITY;
    if (this.speechHoldsGpu()) {
      const graceEnd =
        this.activeStages.size === 0
          ? this.speechEndedAt + visionTunables.resumeAfterSpeechMs
          : now + visionTunables.retryAfterSkipMs;
      return Math.max(this.nextDue, graceEnd);
    }
    return Math.max(this.nextDue, now);
  }

  /** A frame grabbed at `capturedAt` is ready: run the detector on it now, or drop it. */
  admit(capturedAt: number): AdmitResult {
    const now = this.now();
    if (!this.enabled) return { run: false, reason: 'off' };
    if (this.inFlightSince !== null) {
      this.counters.droppedBusy += 1;
      return { run: false, reason: 'busy' };
    }
    if (this.speechHoldsGpu()) {
      this.counters.droppedSpeech += 1;
      this.nextDue = now + visionTunables.retryAfterSkipMs;
      return { run: false, reason: 'speech' };
    }
    if (capturedAt < this.speechStartedAt || now - capturedAt > visionTunables.maxFrameAgeMs) {
      this.counters.droppedStale += 1;
      this.nextDue = now + visionTunables.retryAfterSkipMs;
      return { run: false, reason: 'stale' };
    }
    this.inFlightSince = now;
    this.counters.ran += 1;
    return { run: true };
  }

  /**
   * The detection admitted last has finished (or failed: pass personSeen false). `personSeen` after smoothing picks the
   * cadence: slow once someone is established, fast while searching.
   */
  finished(personSeen: boolean): void {
    this.inFlightSince = null;
    const interval = personSeen ? visionTunables.establishedIntervalMs : visionTunables.searchIntervalMs;
    this.nextDue = this.now() + interval;
  }

  stats(): VisionSchedulerStats {
    return { ...this.counters };
  }
}
