// Token estimate without loading a tokenizer: ~4 characters per token for Latin text, ~1 per CJK character.
// Budgets use it with headroom; callers can pass the model tokenizer's count instead.

export type TokenCounter = (text: string) => number;

const WIDE = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/g;

export const estimateTokens: TokenCounter = (text) => {
  if (!text) return 0;
  const wide = text.match(WIDE)?.length ?? 0;
  return wide + Math.ceil((text.length - wide) / 4);
};
