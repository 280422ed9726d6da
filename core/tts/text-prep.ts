/**
 * Text preparation before tokenisation, as upstream `prepare_text_prompt` does it (pocket-tts.md §4.1), plus the
 * frames-after-EOS rule of §4.4: the model keeps talking for a few frames after its EOS logit fires, and short
 * phrases need more of them.
 */

export interface TextPrepOptions {
  padWithSpacesForShortInputs: boolean;
  removeSemicolons: boolean;
}

export interface PreparedText {
  text: string;
  wordCount: number;
  framesAfterEosGuess: number;
}

export function countWords(text: string): number {
  const t = text.trim();
  return t.length === 0 ? 0 : t.split(/\s+/).length;
}

export function prepareText(raw: string, opts: TextPrepOptions): PreparedText {
  let text = raw.trim().replace(/\r?\n/g, ' ');
  if (opts.removeSemicolons) text = text.replace(/;/g, ',');
  if (text.length > 0) text = text[0]!.toUpperCase() + text.slice(1);
  if (/[\p{L}\p{N}]$/u.test(text)) text += '.';
  const wordCount = countWords(text);
  if (opts.padWithSpacesForShortInputs && wordCount < 5) text = ' '.repeat(8) + text;
  return { text, wordCount, framesAfterEosGuess: wordCount <= 4 ? 3 : 1 };
}

/** Frames generated after the EOS step: the model's recommendation if the bundle has one, else guess + 2. */
export function framesAfterEos(guess: number, modelRecommended: number | null | undefined): number {
  return modelRecommended ?? guess + 2;
}

/** Upstream's length budget: tokens / 3 tokens-per-second + 2 s of padding, at 12.5 frames/s; capped. */
export function maxFramesForTokens(tokenCount: number, frameRate: number, hardCap: number): number {
  return Math.min(hardCap, Math.ceil((tokenCount / 3 + 2) * frameRate));
}
