/**
 * The webcam detector: D-FINE-M trained on COCO (80 classes, Apache-2.0), as exported by onnx-community for
 * transformers.js (`d_fine`, DFineForObjectDetection, RTDetrImageProcessor at 640×640, outputs `logits`
 * [batch, 300, 80] and `pred_boxes` [batch, 300, 4]). Why this one: docs/vision.md.
 *
 * One dtype for both backends (the models/registry.ts rule: after a WebGPU device loss the detector is re-created on
 * WASM from the files already cached): fp32. fp16 would halve the download but needs shader-f16 on WebGPU and can
 * overflow; the int8/uint8 builds quantise convolutions that the WebGPU EP runs poorly or not at all.
 *
 * The size is the hub listing rounded (78.6 MB); pin a commit and its exact bytes + sha256 before release.
 */
import type { ModelBundle } from '../../core/weights/types';

export interface VisionModelSpec {
  id: string;
  repo: string;
  revision: string;
  dtype: 'fp32';
}

export const VISION_MODEL: VisionModelSpec = {
  id: 'vision-dfine-m-coco',
  repo: 'onnx-community/dfine_m_coco-ONNX',
  revision: 'main',
  dtype: 'fp32',
};

/** For the weights catalog (the lead appends it to MODEL_BUNDLES in models/registry.ts). */
export const VISION_BUNDLE: ModelBundle = {
  id: VISION_MODEL.id,
  repo: VISION_MODEL.repo,
  revision: VISION_MODEL.revision,
  dtype: VISION_MODEL.dtype,
  task: 'vision',
  backends: ['webgpu', 'wasm'],
  label: 'D-FINE M object detector (COCO)',
  license: 'Apache-2.0',
  files: [
    { path: 'config.json', size: 5_300 },
    { path: 'preprocessor_config.json', size: 450 },
    { path: 'onnx/model.onnx', size: 78_600_000 },
  ],
};
