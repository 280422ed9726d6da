import { it, expect } from 'vitest';
import { AutoTokenizer, AutoModelForCausalLM, pipeline } from '@huggingface/transformers';
import { startFixtureHub, clip } from './hub-env';
import { llmReferenceContinue } from '../../fixtures/models/reference';
it('smoke', async () => {
  const h = await startFixtureHub();
  const tok = await AutoTokenizer.from_pretrained(h.repos.llm);
  const model = await AutoModelForCausalLM.from_pretrained(h.repos.llm, { dtype: 'q4', device: 'cpu' });
  const ids = tok.apply_chat_template([{ role: 'user', content: 'Hello there' }], { add_generation_prompt: true, return_dict: true }) as any;
  console.log(ids.input_ids.tolist());
  const out = await model.generate({ ...ids, max_new_tokens: 8 }) as any;
  const all = out.tolist()[0].map(Number);
  const prompt = ids.input_ids.tolist()[0].map(Number);
  console.log(all.slice(prompt.length), llmReferenceContinue(prompt, 8));
  for (const r of [h.repos.moonshine, h.repos.whisper]) {
    const p = await pipeline('automatic-speech-recognition', r, { dtype: { encoder_model: 'fp32', decoder_model_merged: 'q4' }, device: 'cpu' });
    console.log(r, await p(clip(1, 440), r.includes('whisper') ? { language: 'en' } : {}), await p(clip(1, null), r.includes('whisper') ? { language: 'en' } : {}));
  }
  console.log(h.hub.log.map((e) => `${e.status} ${e.path} ${e.range ?? ''}`).join('\n'));
  await h.close();
});
