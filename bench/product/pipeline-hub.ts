/**
 * The hub the pipeline bench's model worker downloads from (through serveLocalHub, like the other loops): the pinned
 * LLM repo (llm-hub.ts) with the word-like tokenizer, so a reply of random tokens reaches the sentence chunker in
 * clauses (bench/gpu-browser/wordlike-tokenizer.ts), the pinned Moonshine repo (asr-hub.ts) and the pinned Smart Turn
 * file with the head bias that makes it answer "complete" for speech, as the in-browser GPU bench's hub has them.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { LLM_MODEL, TURN_BUNDLE } from '../../models/registry';
import { TURN_HEAD_BIAS, wordlikeTokenizer } from '../gpu-browser/wordlike-tokenizer';
import { LFM2_1_2B, LFM2_TINY, type LlmDtype } from '../stages/llm-graph';
import { MOONSHINE_BASE, MOONSHINE_TINY } from '../stages/moonshine-graphs';
import { buildSmartTurnGraph, SMART_TURN_FIXTURE, SMART_TURN_FULL } from '../stages/smart-turn-graph';
import { writeMoonshineHub } from './asr-hub';
import { writeLlmRepo } from './llm-hub';

export type PipelineShape = 'full' | 'tiny';

/** What was written, for the results' meta. */
export type PipelineModels = Record<'llm' | 'asr' | 'turn', string>;

export async function writePipelineHub(root: string, shape: PipelineShape): Promise<PipelineModels> {
  const full = shape === 'full';
  // The tiny LLM takes the persona prompt too: with the fixture's tokenizer (about a token per character) it is
  // ~2,800 tokens, past the tiny shape's 512 positions.
  const llmShape = full ? LFM2_1_2B : { ...LFM2_TINY, maxPositions: 8192 };
  const llm = await writeLlmRepo(root, llmShape, LLM_MODEL.dtype as LlmDtype);
  await wordlikeTokenizer(join(root, LLM_MODEL.repo, 'tokenizer.json'));
  const asr = await writeMoonshineHub(root, full ? MOONSHINE_BASE : MOONSHINE_TINY);
  const turn = buildSmartTurnGraph({ ...(full ? SMART_TURN_FULL : SMART_TURN_FIXTURE), headBias: TURN_HEAD_BIAS });
  const file = TURN_BUNDLE.files.find((f) => f.role === 'model')!;
  const path = join(root, file.repo.id, file.path);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, turn.onnx);
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
  return {
    llm: `${full ? 'LFM2.5-1.2B' : 'LFM2 tiny'} shape, ${LLM_MODEL.dtype}, ${mb(llm.onnxBytes + llm.dataBytes)}, word-like tokenizer`,
    asr: `${full ? 'Moonshine base' : 'Moonshine tiny'} shape, fp32, ${mb(asr.encoderBytes + asr.decoderBytes)}`,
    turn: `${full ? 'Smart Turn v3.2' : 'Smart Turn fixture'} shape, head bias ${TURN_HEAD_BIAS}, ${mb(turn.onnx.length)}`,
  };
}
