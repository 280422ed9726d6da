/**
 * The start of a pause as the engine runs it (core/engine/duplex-engine.ts): in the same frame it asks the end-of-turn
 * model (`SmartTurn`, the product's class: its 8 s window and log-mel in JS, one session run on the models' device)
 * and starts the speculative transcription (`AsrRuntime` with the latest draft). Both share the model worker's thread
 * and the GPU queue, so each may slow the other. Timed four ways in one run: the question alone, the transcription
 * alone, both started together (question first, as the engine does), each until it resolves; and the transcription
 * started `ASR_LEAD_MS` before the question (an earlier speculative start), each timed from its own start.
 */
import { SmartTurn } from '../../models/turn/smart-turn';
import type { OrtLike } from '../../models/ort-like';
import type { AsrRuntime } from '../../models/asr/asr-runtime';
import { buildSmartTurnGraph, SMART_TURN_FULL } from '../stages/smart-turn-graph';
import { medianAfterFirst, r1 } from './loop-timing';

/** How much earlier than the question the transcription starts in the fourth timing. */
export const ASR_LEAD_MS = 64;

export interface PauseProbe {
  seconds: number;
  turnDevice: string;
  turnAloneMs: number;
  asrAloneMs: number;
  /** Both started together: when each resolved, from the common start. */
  turnWithAsrMs: number;
  asrWithTurnMs: number;
  /** The transcription started `asrLeadMs` before the question: each from its own start until it resolved. */
  asrLeadMs: number;
  turnAfterAsrMs: number;
  asrLeadingMs: number;
  rounds: {
    turnAloneMs: number;
    asrAloneMs: number;
    turnWithAsrMs: number;
    asrWithTurnMs: number;
    turnAfterAsrMs: number;
    asrLeadingMs: number;
  }[];
}

export async function probePause(
  ort: OrtLike,
  device: 'webgpu' | 'wasm',
  asr: AsrRuntime,
  audio: Float32Array,
  draft: number[],
  rounds: number,
): Promise<PauseProbe> {
  // As the model worker opens it (models/workers/model-host.ts).
  const executionProviders = device === 'webgpu' ? ['webgpu', 'wasm'] : ['wasm'];
  const turn = await SmartTurn.create(ort, buildSmartTurnGraph(SMART_TURN_FULL).onnx, { executionProviders });
  const timed = async (f: () => Promise<unknown>) => {
    const t0 = performance.now();
    await f();
    return performance.now() - t0;
  };
  const perRound: PauseProbe['rounds'] = [];
  for (let r = 0; r < rounds; r++) {
    const turnAloneMs = await timed(() => turn.completeProbability(audio));
    const asrAloneMs = await timed(() => asr.transcribe(audio, { draft }));
    const t0 = performance.now();
    let turnWithAsrMs = 0;
    let asrWithTurnMs = 0;
    await Promise.all([
      turn.completeProbability(audio).then(() => (turnWithAsrMs = performance.now() - t0)),
      asr.transcribe(audio, { draft }).then(() => (asrWithTurnMs = performance.now() - t0)),
    ]);
    const t1 = performance.now();
    let asrLeadingMs = 0;
    let turnAfterAsrMs = 0;
    const leading = asr.transcribe(audio, { draft }).then(() => (asrLeadingMs = performance.now() - t1));
    await new Promise((r) => setTimeout(r, ASR_LEAD_MS));
    const t2 = performance.now();
    await Promise.all([leading, turn.completeProbability(audio).then(() => (turnAfterAsrMs = performance.now() - t2))]);
    perRound.push({
      turnAloneMs: r1(turnAloneMs),
      asrAloneMs: r1(asrAloneMs),
      turnWithAsrMs: r1(turnWithAsrMs),
      asrWithTurnMs: r1(asrWithTurnMs),
      turnAfterAsrMs: r1(turnAfterAsrMs),
      asrLeadingMs: r1(asrLeadingMs),
    });
    console.error(`pause round ${r}: ${JSON.stringify(perRound.at(-1))}`);
  }
  await turn.release();
  const med = (k: keyof PauseProbe['rounds'][number]) => medianAfterFirst(perRound.map((x) => x[k]));
  return {
    seconds: audio.length / 16000,
    turnDevice: executionProviders[0]!,
    turnAloneMs: med('turnAloneMs'),
    asrAloneMs: med('asrAloneMs'),
    turnWithAsrMs: med('turnWithAsrMs'),
    asrWithTurnMs: med('asrWithTurnMs'),
    asrLeadMs: ASR_LEAD_MS,
    turnAfterAsrMs: med('turnAfterAsrMs'),
    asrLeadingMs: med('asrLeadingMs'),
    rounds: perRound,
  };
}
