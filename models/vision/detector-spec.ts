/**
 * The webcam detector: D-FINE-M trained on COCO (80 classes, Apache-2.0), as exported by onnx-community for
 * transformers.js (`d_fine`, DFineForObjectDetection, RTDetrImageProcessor at 640×640, outputs `logits`
 * [batch, 300, 80] and `pred_boxes` [batch, 300, 4]). Why this one: docs/vision.md. Its files, commit, sizes and hash
 * are pinned in models/manifest.json (docs/models.md).
 *
 * One dtype for both backends (the models/registry.ts rule: after a WebGPU device loss the detector is re-created on
 * WASM from the files already cached): fp32. fp16 would halve the download but needs shader-f16 on WebGPU and can
 * overflow; the int8/uint8 builds quantise convolutions that the WebGPU EP runs poorly or not at all.
 */
import type { ModelBundle } from '../../core/weights/types';
import { bundleById, transformersSource } from '../registry';

export interface VisionModelSpec {
  id: string;
  repo: string;
  revision: string;
  dtype: 'fp32';
}

export const VISION_BUNDLE: ModelBundle = bundleById('vision-dfine-m-coco');

export const VISION_MODEL: VisionModelSpec = {
  id: VISION_BUNDLE.id,
  ...transformersSource(VISION_BUNDLE),
  dtype: 'fp32',
};
