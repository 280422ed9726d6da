/**
 * The webcam object detector over transformers.js: RTDetrImageProcessor (resize to 640×640, rescale to [0, 1]; its
 * settings ship in detector-config.ts) + AutoModelForObjectDetection (D-FINE), decoded with core/vision/decode.ts (sigmoid, top-k; see there why
 * not the pipeline's softmax post-processing). Runs wherever it is constructed: the vision worker in the extension,
 * plain Node in tests. Pixels are only ever in memory for the duration of one call.
 */
import {
  AutoModelForObjectDetection,
  PretrainedConfig,
  RawImage,
  RTDetrImageProcessor,
  type PreTrainedModel,
  type Tensor,
} from '@huggingface/transformers';
import { decodeDetections, labelsFromConfig } from '../../core/vision/decode';
import type { Detection } from '../../core/vision/types';
import { visionTunables } from '../../core/tunables';
import { VISION_MODEL } from './detector-spec';
import { DETECTOR_MODEL_CONFIG, DETECTOR_PREPROCESSOR_CONFIG } from './detector-config';

export type DetectorDevice = 'webgpu' | 'wasm' | 'cpu';

/** An RGBA frame as a canvas's getImageData() gives it. */
export interface RgbaFrame {
  data: Uint8ClampedArray;
  width: number;
  height: number;
}

export interface DetectorLoadOptions {
  device: DetectorDevice;
  /** Overrides for tests or a mirror; defaults come from detector-spec.ts. */
  repo?: string;
  revision?: string;
  onProgress?: (event: unknown) => void;
  /** Run one small blank frame after loading so the first real look does not pay for kernel compilation. */
  warmUp?: boolean;
}

export interface DetectOptions {
  threshold?: number;
  maxDetections?: number;
}

/** Explicit per backend (transformers defaults to fp32 on WebGPU but q8 on WASM): see detector-spec.ts. */
export function detectorDtype(_device: DetectorDevice): 'fp32' {
  return VISION_MODEL.dtype;
}

export class Detector {
  private constructor(
    private readonly processor: RTDetrImageProcessor,
    private readonly model: PreTrainedModel,
    private readonly labels: Array<string | undefined>,
    readonly device: DetectorDevice,
  ) {}

  static async load(options: DetectorLoadOptions): Promise<Detector> {
    const repo = options.repo ?? VISION_MODEL.repo;
    const common = { revision: options.revision ?? VISION_MODEL.revision, progress_callback: options.onProgress };
    // The two configs ship with the extension (detector-config.ts): only the pinned graph is downloaded.
    const processor = new RTDetrImageProcessor(DETECTOR_PREPROCESSOR_CONFIG);
    const model = await AutoModelForObjectDetection.from_pretrained(repo, {
      ...common,
      config: new PretrainedConfig(DETECTOR_MODEL_CONFIG),
      device: options.device,
      dtype: detectorDtype(options.device),
    });
    const config = model.config as unknown as { id2label?: Record<string, string>; num_labels?: number };
    const classes = config.num_labels ?? Object.keys(config.id2label ?? {}).length;
    const detector = new Detector(processor, model, labelsFromConfig(config.id2label, classes), options.device);
    if (options.warmUp ?? true)
      await detector.detect({ data: new Uint8ClampedArray(32 * 32 * 4).fill(128), width: 32, height: 32 });
    return detector;
  }

  async detect(frame: RgbaFrame, options: DetectOptions = {}): Promise<Detection[]> {
    if (frame.data.length !== frame.width * frame.height * 4) {
      throw new Error(`frame is ${frame.data.length} bytes, expected ${frame.width}×${frame.height}×4`);
    }
    const image = new RawImage(frame.data, frame.width, frame.height, 4);
    const inputs = (await this.processor(image)) as { pixel_values: Tensor };
    const outputs = (await this.model({ pixel_values: inputs.pixel_values })) as { logits: Tensor; pred_boxes: Tensor };
    try {
      const [, queries, classes] = outputs.logits.dims as [number, number, number];
      return decodeDetections(
        { logits: outputs.logits.data as Float32Array, boxes: outputs.pred_boxes.data as Float32Array, queries, classes },
        {
          labels: this.labels,
          threshold: options.threshold ?? visionTunables.scoreThreshold,
          maxDetections: options.maxDetections ?? visionTunables.maxDetections,
        },
      );
    } finally {
      inputs.pixel_values.dispose();
      outputs.logits.dispose();
      outputs.pred_boxes.dispose();
    }
  }

  async dispose(): Promise<void> {
    await this.model.dispose();
  }
}
