/**
 * Vision in the offscreen document, end to end: camera on/off, the scheduler's GPU rule, detection in the worker,
 * smoothing, preview frames to the side panel, and answers. The offscreen wiring only forwards: settings
 * (visionEnabled) → start()/stop(); engine speech stages → setStage(); a matched question → answer(). Timers and
 * clock are injected so Node tests drive it with fakes.
 */
import { answerVisionQuestion, sceneTag, type VisionAvailability } from '../../core/vision/answers';
import type { VisionIntent } from '../../core/vision/intents';
import type { VisionPreviewMessage } from '../../core/vision/preview-channel';
import { VisionScheduler, type SpeechStage } from '../../core/vision/scheduler';
import { SceneTracker } from '../../core/vision/scene-tracker';
import type { Detection, SceneSnapshot } from '../../core/vision/types';
import { visionTunables } from '../../core/tunables';
import type { CameraState, GrabbedFrame } from './camera-capture';
import type { RgbaFrame } from './detector';

export interface CameraLike {
  readonly state: CameraState;
  start(): Promise<void>;
  stop(): void;
  grab(maxSide: number): GrabbedFrame | null;
}

export interface VisionLoopDeps {
  createCamera(onState: (state: CameraState) => void): CameraLike;
  detect(frame: RgbaFrame, capturedAt: number): Promise<Detection[]>;
  publish(message: VisionPreviewMessage): void;
  now(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
  /** Detection failures are reported, never thrown into the engine. */
  onError?(error: unknown): void;
}

export class VisionLoop {
  readonly scheduler: VisionScheduler;
  private readonly tracker = new SceneTracker();
  private readonly camera: CameraLike;
  private timer: unknown = null;
  private seq = 0;
  private paused = false;
  /** Bumped by stop(): a detection that finishes after stop() is discarded. */
  private session = 0;

  constructor(private readonly deps: VisionLoopDeps) {
    this.scheduler = new VisionScheduler(deps.now);
    this.camera = deps.createCamera((state) => this.onCameraState(state));
  }

  async start(): Promise<void> {
    if (this.scheduler.isEnabled) return;
    this.deps.publish({ kind: 'state', state: 'starting' });
    await this.camera.start();
    if (this.camera.state.kind !== 'on') return; // onCameraState already published the error
    this.tracker.reset();
    this.scheduler.enable();
    this.publishRunState(true);
    this.schedule();
  }

  /** Vision off: camera light off now, scene forgotten, preview cleared. */
  stop(): void {
    this.session += 1;
    this.scheduler.disable();
    this.clearTimer();
    this.camera.stop();
    this.tracker.reset();
    this.deps.publish({ kind: 'state', state: 'off' });
  }

  setStage(stage: SpeechStage, active: boolean): void {
    this.scheduler.setStage(stage, active);
    if (this.scheduler.isEnabled) this.publishRunState(false);
    this.schedule();
  }

  availability(): VisionAvailability {
    const camera = this.camera.state;
    if (camera.kind === 'error') return camera.code === 'ended' ? 'camera-lost' : 'off';
    if (camera.kind === 'starting') return 'starting';
    return camera.kind === 'on' && this.scheduler.isEnabled ? 'on' : 'off';
  }

  scene(): SceneSnapshot {
    return this.tracker.snapshot();
  }

  answer(intent: VisionIntent): string {
    return answerVisionQuestion(intent, { availability: this.availability(), scene: this.scene(), now: this.deps.now() });
  }

  /** For questions vision does not answer itself: a factual tag for the LLM prompt, or null when vision is not on. */
  llmSceneTag(): string | null {
    return this.availability() === 'on' ? sceneTag(this.scene()) : null;
  }

  private onCameraState(state: CameraState): void {
    if (state.kind !== 'error') return;
    this.session += 1;
    this.scheduler.disable();
    this.clearTimer();
    this.tracker.reset();
    this.deps.publish({ kind: 'state', state: 'error', message: state.message });
  }

  private publishRunState(force: boolean): void {
    const paused = this.scheduler.speechHoldsGpu();
    if (!force && paused === this.paused) return;
    this.paused = paused;
    this.deps.publish({ kind: 'state', state: paused ? 'paused' : 'on' });
  }

  private clearTimer(): void {
    if (this.timer !== null) this.deps.clearTimer(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    this.clearTimer();
    if (!this.scheduler.isEnabled || this.scheduler.detecting) return;
    const delay = Math.max(0, this.scheduler.nextCheckAt() - this.deps.now());
    this.timer = this.deps.setTimer(() => {
      this.timer = null;
      void this.tick();
    }, delay);
  }

  private async tick(): Promise<void> {
    this.publishRunState(false);
    if (!this.scheduler.wantFrame()) return this.schedule();
    const grabbed = this.camera.grab(visionTunables.detectMaxSide);
    if (!grabbed) return this.schedule();
    if (!this.scheduler.admit(grabbed.capturedAt).run) return this.schedule();
    const session = this.session;
    // Encode the preview before the pixels are transferred to the worker (the transfer detaches the buffer).
    const jpeg = grabbed.jpeg(visionTunables.previewMaxSide, visionTunables.previewJpegQuality).catch(() => null);
    const { width, height } = grabbed.frame;
    let personSeen = false;
    try {
      const detections = await this.deps.detect(grabbed.frame, grabbed.capturedAt);
      if (session !== this.session) return;
      const scene = this.tracker.update({ capturedAt: grabbed.capturedAt, detections });
      personSeen = scene.personCount > 0;
      const blob = await jpeg;
      if (blob && session === this.session) {
        this.deps.publish({
          kind: 'frame',
          seq: this.seq++,
          capturedAt: grabbed.capturedAt,
          width,
          height,
          jpeg: blob,
          objects: scene.objects.flatMap((o) => o.boxes.map((box) => ({ label: o.label, score: o.score, box }))),
        });
      }
    } catch (error) {
      this.deps.onError?.(error);
    } finally {
      if (session === this.session) {
        this.scheduler.finished(personSeen);
        this.schedule();
      }
    }
  }
}
