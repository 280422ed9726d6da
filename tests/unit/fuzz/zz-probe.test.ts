import { it } from 'vitest';
import { parseMessage, createEventReceiver } from '../../../core/protocol';
import { hostileInputs, overJson, Rng } from '../../../tests/unit/fuzz/arbitrary';
import { eventSamples, requestSamples } from '../../../tests/unit/fuzz/samples';
it('probe', () => {
  const rng = new Rng(0x5eed01);
  const valid = [...requestSamples().map((s) => s.message), ...eventSamples()];
  let n = 0;
  for (const input of hostileInputs(rng, 3000, valid)) {
    for (const x of [input, overJson(input)]) {
      const r = parseMessage(x);
      if (!r.ok && r.error.message.length > 1000 && n++ < 4) console.log(r.error.message.slice(0, 300), '...', r.error.message.length);
    }
  }
});
