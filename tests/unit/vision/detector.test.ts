// The fixture D-FINE runs through the real transformers.js code path (config, processor, ONNX session over HTTP from
// the hub server, onnxruntime-node), and different pictures give the detections the fixture's formulas predict.
// Pictures are large enough that the processor's bilinear resize to 640×640 blurs only a sliver of each quadrant.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeDetections, labelsFromConfig } from '../../../core/vision/decode';
import type { Detection } from '../../../core/vision/types';
import { Detector } from '../../../models/vision/detector';
import { VISION_BUNDLE, VISION_MODEL } from '../../../models/vision/detector-spec';
import { expectRequestsInManifest } from '../models/hub-env';
import { COCO_LABELS } from '../../../models/vision/coco-labels';
import { quadrantImage, referenceOutputs, type RgbaImage } from '../../fixtures/vision/reference';
import { startVisionHub, type VisionHub } from './hub';

const RED: [number, number, number] = [230, 20, 20];
const GREEN: [number, number, number] = [20, 220, 30];
const BLUE: [number, number, number] = [10, 30, 240];
const GREY: [number, number, number] = [128, 128, 128];
const DIM_RED: [number, number, number] = [190, 50, 50];

function expected(image: RgbaImage): Detection[] {
  const { logits, boxes } = referenceOutputs(image);
  return decodeDetections(
    { logits, boxes, queries: 4, classes: 80 },
    {
      labels: labelsFromConfig(Object.fromEntries(COCO_LABELS.map((l, i) => [String(i), l])), 80),
      threshold: 0.45,
      maxDetections: 40,
    },
  );
}

/** Same detections up to float noise; order-insensitive (equal-score ties may swap). */
function expectMatches(actualIn: Detection[], wantedIn: Detection[]): void {
  const byPlace = (a: Detection, b: Detection) => a.label.localeCompare(b.label) || a.box.x0 - b.box.x0 || a.box.y0 - b.box.y0;
  const actual = [...actualIn].sort(byPlace);
  const wanted = [...wantedIn].sort(byPlace);
  expect(actual.map((d) => d.label)).toEqual(wanted.map((d) => d.label));
  actual.forEach((d, i) => {
    const w = wanted[i]!;
    expect(Math.abs(d.score - w.score)).toBeLessThan(0.02);
    for (const k of ['x0', 'y0', 'x1', 'y1'] as const) expect(Math.abs(d.box[k] - w.box[k])).toBeLessThan(0.01);
  });
}

let env: VisionHub;
let detector: Detector;

beforeAll(async () => {
  env = await startVisionHub();
  detector = await Detector.load({ device: 'cpu' });
});

afterAll(async () => {
  await detector?.dispose();
  await env?.close();
});

describe('Detector over the fixture hub', () => {
  it('downloads only the pinned fp32 graph: both configs ship with the extension', () => {
    const paths = env.hub.log.filter((e) => e.status === 200 || e.status === 206).map((e) => e.path);
    const base = `/${VISION_MODEL.repo}/resolve/${VISION_MODEL.revision}/`;
    expect(VISION_MODEL.revision).toMatch(/^[0-9a-f]{40}$/);
    expect(paths).toContain(`${base}onnx/model.onnx`);
    expect(expectRequestsInManifest(env.hub.log, VISION_BUNDLE)).toEqual(['onnx/model.onnx']);
  });

  it('a person top-left and a phone bottom-right', async () => {
    const image = quadrantImage(320, 240, [RED, GREY, GREY, BLUE]);
    const got = await detector.detect(image);
    expect(got.map((d) => d.label).sort()).toEqual(['cell phone', 'person']);
    const person = got.find((d) => d.label === 'person')!;
    expect(person.box.x1).toBeLessThanOrEqual(0.5 + 1e-6);
    expect(person.box.y1).toBeLessThanOrEqual(0.5 + 1e-6);
    expectMatches(got, expected(image));
  });

  it('a different picture gives different detections: two cups and a dimmer, smaller person', async () => {
    const image = quadrantImage(640, 480, [GREEN, DIM_RED, GREY, GREEN]);
    const got = await detector.detect(image);
    expect(got.filter((d) => d.label === 'cup')).toHaveLength(2);
    const person = got.find((d) => d.label === 'person')!;
    expect(person.score).toBeLessThan(0.99);
    expect(person.box.x1 - person.box.x0).toBeLessThan(0.5);
    expectMatches(got, expected(image));
  });

  it('a flat grey picture has nothing in it', async () => {
    expect(await detector.detect(quadrantImage(32, 32, [GREY, GREY, GREY, GREY]))).toEqual([]);
  });

  it('honours the threshold and the cap', async () => {
    const image = quadrantImage(320, 320, [RED, GREEN, BLUE, DIM_RED]);
    expect(await detector.detect(image)).toHaveLength(4);
    expect(await detector.detect(image, { maxDetections: 2 })).toHaveLength(2);
    const strict = await detector.detect(image, { threshold: 0.999 });
    expect(strict.length).toBeLessThan(4);
    expectMatches(
      strict,
      expected(image).filter((d) => d.score >= 0.999),
    );
  });

  it('rejects a frame whose byte length does not match its size', async () => {
    await expect(detector.detect({ data: new Uint8ClampedArray(10), width: 4, height: 4 })).rejects.toThrow(/expected 4×4×4/);
  });
});
