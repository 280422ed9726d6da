import type { TurnEvent } from '../engine/types';
import type { SpeechStage } from './scheduler';

const ALL_OUTPUT: [SpeechStage, boolean][] = [
  ['asr', false],
  ['llm', false],
  ['tts', false],
  ['playback', false],
];

/**
 * Which speech stages a turn event opens or closes, for the scheduler's rule that vision never delays a reply. Every
 * stage of the turn vocabulary is listed, so a new stage does not compile until it is decided here.
 */
export function speechStagesFor(event: TurnEvent): [SpeechStage, boolean][] {
  switch (event.stage) {
    case 'speech-start':
      return [['utterance', true]];
    case 'endpoint':
      return [['utterance', false]];
    case 'asr-start':
      return [['asr', true]];
    case 'transcript':
      return [['asr', false]];
    case 'llm-start':
      return [['llm', true]];
    case 'first-speak':
      return [['tts', true]];
    case 'first-audio':
      return [['playback', true]];
    case 'discarded':
      return [
        ['utterance', false],
        ['asr', false],
      ];
    case 'speculation-discarded':
      return [
        ['asr', false],
        ['llm', false],
      ];
    // Every way a turn ends releases the GPU stages it held.
    case 'done':
    case 'failed':
    case 'interrupted':
      return [...ALL_OUTPUT, ['utterance', false]];
    // A draft runs inside the utterance, which already keeps vision off the GPU.
    case 'asr-draft':
    case 'tentative-endpoint':
    case 'turn-check':
    case 'end-of-speech':
    case 'first-token':
    case 'speak':
    case 'audio-complete':
    case 'echo-path':
    case 'merge':
    case 'barge-tentative':
    case 'barge-released':
    case 'barge-onset':
    case 'barge-in':
    case 'clarify':
    case 'holding-line':
    case 'background-start':
    case 'background-done':
    case 'background-delivered':
    case 'degenerate':
    case 'watchdog':
      return [];
  }
}
