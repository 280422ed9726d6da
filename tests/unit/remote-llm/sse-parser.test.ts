import { describe, expect, it } from 'vitest';
import { SseParser, type SseEvent } from '../../../core/remote-llm/sse-parser';

function parseInPieces(text: string, cuts: number[]): SseEvent[] {
  const p = new SseParser();
  const out: SseEvent[] = [];
  let from = 0;
  for (const cut of [...cuts, text.length]) {
    out.push(...p.push(text.slice(from, cut)));
    from = cut;
  }
  return [...out, ...p.end()];
}

const STREAM =
  '\uFEFF: comment line\r\n' +
  'data: {"a":1}\r\n\r\n' +
  'event: ping\n: another comment\ndata: x\n\n' +
  'data: line one\rdata:line two\r\r' +
  'data\n\n' +
  'data: [DONE]\n\n';

const EXPECTED: SseEvent[] = [
  { event: 'message', data: '{"a":1}' },
  { event: 'ping', data: 'x' },
  { event: 'message', data: 'line one\nline two' },
  { event: 'message', data: '' },
  { event: 'message', data: '[DONE]' },
];

describe('SseParser', () => {
  it('parses a whole stream with BOM, comments, named events, CR/LF/CRLF and multi-line data', () => {
    expect(parseInPieces(STREAM, [])).toEqual(EXPECTED);
  });

  it('gives the same events for every single split point', () => {
    for (let cut = 1; cut < STREAM.length; cut++) {
      expect(parseInPieces(STREAM, [cut]), `split at ${cut}`).toEqual(EXPECTED);
    }
  });

  it('gives the same events when fed one character at a time', () => {
    expect(
      parseInPieces(
        STREAM,
        Array.from({ length: STREAM.length - 1 }, (_, i) => i + 1),
      ),
    ).toEqual(EXPECTED);
  });

  it('does not treat a CR split from its LF as two line breaks (which would end the event early)', () => {
    const text = 'data: a\r\ndata: b\r\n\r\n';
    expect(parseInPieces(text, [text.indexOf('\n')])).toEqual([{ event: 'message', data: 'a\nb' }]);
  });

  it('flushes an unterminated last event at the end and ignores comment-only streams', () => {
    expect(parseInPieces('data: tail', [])).toEqual([{ event: 'message', data: 'tail' }]);
    expect(parseInPieces(': just a keep-alive\n\n: another\n\n', [])).toEqual([]);
  });
});
