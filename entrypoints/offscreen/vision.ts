import { VISION_PREVIEW_CHANNEL } from '../../core/vision/preview-channel';
import { matchVisionIntent, type VisionIntent } from '../../core/vision/intents';
import { CameraCapture } from '../../models/vision/camera-capture';
import { VISION_BUNDLE } from '../../models/vision/detector-spec';
import { VisionLoop } from '../../models/vision/vision-loop';
import { portAsWorker, VisionWorkerClient } from '../../models/vision/vision-worker-client';
import type { TurnEvent } from '../../core/engine/types';
import { speechStagesFor } from '../../core/vision/turn-stages';

/**
 * Webcam vision in the offscreen document: the camera is open only while vision is on, frames go to the detector that
 * runs inside the model worker, and a downscaled preview goes to the side panel. Nothing is stored or sent anywhere.
 */
export class VisionService {
  private loop: VisionLoop | null = null;
  private client: VisionWorkerClient | null = null;
  private starting: Promise<void> | null = null;
  private readonly preview = new BroadcastChannel(VISION_PREVIEW_CHANNEL);
  private baseUrl: string | undefined;

  constructor(
    private readonly openPort: () => MessagePort,
    private readonly modelsReady: (ids: string[], baseUrl: string | undefined) => Promise<boolean>,
    private readonly onError: (message: string) => void,
  ) {}

  get on(): boolean {
    return this.loop !== null;
  }

  start(baseUrl: string | undefined): Promise<void> {
    this.baseUrl = baseUrl;
    this.starting ??= this.open(baseUrl).finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private async open(baseUrl: string | undefined): Promise<void> {
    if (this.loop) return;
    if (!(await this.modelsReady([VISION_BUNDLE.id], baseUrl))) {
      throw new Error('The vision model is not downloaded yet. Open Settings → Models and download it.');
    }
    if (!this.client) {
      const port = this.openPort();
      this.client = new VisionWorkerClient(portAsWorker(port));
      await this.client.load({
        remoteHost: `${baseUrl ?? 'https://huggingface.co'}/`,
        wasmPaths: chrome.runtime.getURL('/ort/'),
      });
    }
    const client = this.client;
    this.loop = new VisionLoop({
      createCamera: (onState) => new CameraCapture(onState),
      detect: (frame, capturedAt) => client.detect(frame, capturedAt),
      publish: (message) => this.preview.postMessage(message),
      now: () => performance.now(),
      setTimer: (fn, ms) => setTimeout(fn, ms),
      clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
      onError: (err) => this.onError(`Vision: ${err instanceof Error ? err.message : String(err)}`),
    });
    await this.loop.start();
  }

  /** The model worker (which hosts the detector) was replaced: load the detector there again and resume if on. */
  async restart(): Promise<void> {
    await this.starting?.catch(() => undefined);
    const wasOn = this.loop !== null;
    this.loop?.stop();
    this.loop = null;
    this.client = null;
    if (wasOn) await this.start(this.baseUrl);
  }

  /** Turns the camera off at once (tracks stopped: the camera light goes off). */
  async stop(): Promise<void> {
    await this.starting?.catch(() => undefined);
    this.loop?.stop();
    this.loop = null;
  }

  /** The camera scheduler follows the turn's stages (vision waits while speech work needs the GPU). */
  onTurnEvent(event: TurnEvent): void {
    for (const [stage, active] of speechStagesFor(event)) this.loop?.setStage(stage, active);
  }

  /** A spoken answer when the user asks about what the camera sees (and vision is on); null otherwise. */
  answerFor(text: string): string | null {
    const intent: VisionIntent | null = matchVisionIntent(text);
    if (!intent) return null;
    if (!this.loop) return "My camera is off. You can turn on webcam vision in Sidetalk's popup.";
    return this.loop.answer(intent);
  }

  /** What the camera shows, as a data line for the prompt (never instructions). */
  sceneTag(): string | null {
    return this.loop?.llmSceneTag() ?? null;
  }
}
