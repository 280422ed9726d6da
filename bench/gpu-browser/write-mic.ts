/** Writes the fake microphone's WAV of the browser-latency mic script (espeak-ng + sox) and prints its path. */
import { makeMicScript } from '../browser-latency/mic-script';

console.log(makeMicScript('gpu-browser-mic').wav);
