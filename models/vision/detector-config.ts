/**
 * The detector's model and image-processor settings, shipped with the extension instead of downloaded: the hub's
 * config.json and preprocessor_config.json of onnx-community/dfine_m_coco-ONNX have no public size or hash to pin
 * (docs/models.md), and the app needs only these values from them: the architecture (model_type d_fine, so
 * transformers.js picks DFineForObjectDetection), the 80 COCO classes of the graph's `logits` [b, 300, 80], and the
 * RTDetrImageProcessor settings of the onnx-community D-FINE exports (resize to 640×640 bilinear, rescale by 1/255, no
 * normalisation, no padding). Only the pinned, verified onnx/model.onnx comes from the hub.
 */
import { COCO_LABELS } from './coco-labels';

export const DETECTOR_MODEL_CONFIG = {
  architectures: ['DFineForObjectDetection'],
  model_type: 'd_fine',
  num_labels: COCO_LABELS.length,
  id2label: Object.fromEntries(COCO_LABELS.map((name, i) => [String(i), name])),
  label2id: Object.fromEntries(COCO_LABELS.map((name, i) => [name, i])),
};

export const DETECTOR_PREPROCESSOR_CONFIG = {
  image_processor_type: 'RTDetrImageProcessor',
  do_resize: true,
  size: { height: 640, width: 640 },
  resample: 2,
  do_rescale: true,
  rescale_factor: 1 / 255,
  do_normalize: false,
  do_pad: false,
  do_convert_annotations: true,
  format: 'coco_detection',
};
